package object

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestRefString(t *testing.T) {
	tests := []struct {
		ref  Ref
		want string
	}{
		{Ref{Kind: "Namespace", Name: "shop"}, "Namespace/shop"},
		{Ref{Group: "apps", Kind: "Deployment", Namespace: "shop", Name: "web"}, "Deployment/shop/web"},
	}
	for _, tt := range tests {
		if got := tt.ref.String(); got != tt.want {
			t.Errorf("%#v.String() = %q, want %q", tt.ref, got, tt.want)
		}
	}
}

func TestIsSecret(t *testing.T) {
	secret := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Secret"}}
	other := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Secret"}}
	if !IsSecret(secret) || IsSecret(other) {
		t.Errorf("IsSecret(v1 Secret) = %t, IsSecret(example.com Secret) = %t; want true, false", IsSecret(secret), IsSecret(other))
	}
}
