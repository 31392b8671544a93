package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// AddToScheme adds Release and ReleaseList to a scheme.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &Release{}, &ReleaseList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}
