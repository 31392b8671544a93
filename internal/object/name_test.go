package object

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestNameProblems(t *testing.T) {
	tests := []struct {
		name               string
		group, kind, input string
		ok                 bool
	}{
		{"a DNS subdomain names a ConfigMap", "", "ConfigMap", "web.config-1", true},
		{"a path escape is no ConfigMap name", "", "ConfigMap", "x/../../victim", false},
		{"upper case is no Deployment name", "apps", "Deployment", "Web", false},
		{"a newline is no Secret name", "", "Secret", "a\nb", false},
		{"a name over 253 characters is no ConfigMap name", "", "ConfigMap", strings.Repeat("a", 254), false},
		{"a name of 253 characters names a ConfigMap", "", "ConfigMap", strings.Repeat("a", 253), true},
		{"a dot is no Namespace name", "", "Namespace", "a.b", false},
		{"a DNS label names a Namespace", "", "Namespace", "shop", true},
		{"a leading digit is no Service name", "", "Service", "1web", false},
		{"a colon names a ClusterRole", "rbac.authorization.k8s.io", "ClusterRole", "system:metrics-reader", true},
		{"upper case names a RoleBinding", "rbac.authorization.k8s.io", "RoleBinding", "Admin:Binding", true},
		{"a slash is no ClusterRole name", "rbac.authorization.k8s.io", "ClusterRole", "a/b", false},
		{"dot-dot is no Role name", "rbac.authorization.k8s.io", "Role", "..", false},
		{"a percent sign is no Role name", "rbac.authorization.k8s.io", "Role", "a%2fb", false},
		{"a newline is no ClusterRole name for Piceli", "rbac.authorization.k8s.io", "ClusterRole", "a\nb", false},
		{"an APIService may end in a dot", "apiregistration.k8s.io", "APIService", "v1.", true},
		{"an IP address names an IPAddress", "networking.k8s.io", "IPAddress", "2001:db8::1", true},
		{"a custom resource takes a DNS subdomain", "example.com", "Widget", "w-1.a", true},
		{"a colon is no custom resource name", "example.com", "Widget", "a:b", false},
		{"a custom resource may not climb out of a directory", "example.com", "Widget", "x/../y", false},
		{"an empty name is refused", "", "ConfigMap", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msgs := NameProblems(tt.group, tt.kind, tt.input)
			if tt.ok != (len(msgs) == 0) {
				t.Errorf("NameProblems(%q, %q, %q) = %q, want ok %v", tt.group, tt.kind, tt.input, msgs, tt.ok)
			}
		})
	}
}

func TestCheckNamesNamesTheKeyAndQuotesTheName(t *testing.T) {
	tests := []struct {
		name string
		obj  map[string]any
		want string
	}{
		{"a bad name names metadata.name", map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "a\n*/b"}}, `ConfigMap/"a\n*/b": metadata.name: `},
		{"a bad namespace names metadata.namespace", map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "a", "namespace": "../x"}}, `ConfigMap/"../x"/a: metadata.namespace "../x": `},
		{"a huge name is cut", map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": strings.Repeat("x", 5000)}}, `"... (5000 bytes): metadata.name`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckNames(&unstructured.Unstructured{Object: tt.obj})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("CheckNames() = %v, want it to contain %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "\n") || len(err.Error()) > 600 {
				t.Errorf("CheckNames() = %q: a newline or over 600 bytes", err)
			}
		})
	}
	ok := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "a", "namespace": "shop"}}}
	if err := CheckNames(ok); err != nil {
		t.Errorf("CheckNames(ConfigMap shop/a) = %v, want nil", err)
	}
}
