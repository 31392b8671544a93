package importgen

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
)

// Typed converts u to its k8s.io/api type. ok is false for kinds without
// one (custom resources, CustomResourceDefinitions); err says why an
// object of a typed kind does not fit its type (a string where a number
// belongs, say). Fields the type does not know are dropped silently: the
// caller compares the result with u to find out.
func Typed(u *unstructured.Unstructured) (obj runtime.Object, ok bool, err error) {
	obj, err = scheme.Scheme.New(u.GroupVersionKind())
	if err != nil {
		return nil, false, nil
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, obj); err != nil {
		return nil, true, fmt.Errorf("%s does not fit k8s.io/api %T: %w", u.GetKind(), obj, err)
	}
	return obj, true, nil
}
