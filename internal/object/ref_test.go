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
	tests := []struct {
		name     string
		manifest map[string]any
		want     bool
	}{
		{"a v1 Secret is one", map[string]any{"apiVersion": "v1", "kind": "Secret"}, true},
		{"a bare manifest of kind Secret is one", map[string]any{"kind": "Secret"}, true},
		{"a kind Secret of another group is not one", map[string]any{"apiVersion": "example.com/v1", "kind": "Secret"}, false},
		{"a ConfigMap is not one", map[string]any{"apiVersion": "v1", "kind": "ConfigMap"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := &unstructured.Unstructured{Object: tt.manifest}
			if got := IsSecret(u); got != tt.want {
				t.Errorf("IsSecret(%v) = %t, want %t", tt.manifest, got, tt.want)
			}
			if got := IsSecretRef(RefOf(u)); got != tt.want {
				t.Errorf("IsSecretRef(RefOf(%v)) = %t, want %t", tt.manifest, got, tt.want)
			}
		})
	}
}
