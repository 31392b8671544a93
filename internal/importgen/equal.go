package importgen

import "k8s.io/apimachinery/pkg/api/equality"

// semanticEqual compares k8s.io/api values as the API does (quantities by
// value).
func semanticEqual(a, b any) bool { return equality.Semantic.DeepEqual(a, b) }
