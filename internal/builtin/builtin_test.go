package builtin

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/kubernetes/scheme"
)

// A library that adds a kind to client-go's global scheme (the Helm SDK
// adds CustomResourceDefinition when it starts) does not make it built-in.
func TestSchemeIsNotExtendedThroughClientGosScheme(t *testing.T) {
	if err := apiextensionsv1.AddToScheme(scheme.Scheme); err != nil {
		t.Fatal(err)
	}
	if _, _, err := scheme.Scheme.ObjectKinds(&apiextensionsv1.CustomResourceDefinition{}); err != nil {
		t.Fatalf("client-go's scheme did not take the CRD kind: %v", err)
	}
	if _, _, err := Scheme().ObjectKinds(&apiextensionsv1.CustomResourceDefinition{}); err == nil {
		t.Error("the built-in scheme knows CustomResourceDefinition, which client-go does not register")
	}
	if _, _, err := Scheme().ObjectKinds(&appsv1.Deployment{}); err != nil {
		t.Errorf("the built-in scheme does not know Deployment: %v", err)
	}
}
