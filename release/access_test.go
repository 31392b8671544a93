package release

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/access"
)

// svc is a Service manifest as a revision file decodes it: numbers are
// float64.
func svc(name string, ports ...map[string]any) *unstructured.Unstructured {
	list := make([]any, len(ports))
	for i, p := range ports {
		list[i] = p
	}
	return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Service",
		"metadata": map[string]any{"name": name, "namespace": "shop"}, "spec": map[string]any{"ports": list}}}
}

func TestAccessRequests(t *testing.T) {
	services := []*unstructured.Unstructured{
		svc("web", map[string]any{"name": "http", "port": float64(80)}),
		svc("api", map[string]any{"name": "http", "port": int64(8080)}, map[string]any{"name": "metrics", "port": float64(9090)}),
		svc("headless"),
	}
	tests := []struct {
		name    string
		opts    AccessOptions
		want    []access.Request
		wantErr string
	}{
		{name: "every port of every Service with ports", want: []access.Request{
			{Namespace: "shop", Service: "web", Ports: []access.Port{{Name: "http", Port: 80}}},
			{Namespace: "shop", Service: "api", Ports: []access.Port{{Name: "http", Port: 8080}, {Name: "metrics", Port: 9090}}},
		}},
		{name: "only and local ports by service, name and number", opts: AccessOptions{Only: []string{"api", "web"}, Ports: map[string]int{"web": 8081, "api:metrics": 9999, "api:8080": 18081}},
			want: []access.Request{
				{Namespace: "shop", Service: "web", Ports: []access.Port{{Name: "http", Port: 80, Local: 8081}}},
				{Namespace: "shop", Service: "api", Ports: []access.Port{{Name: "http", Port: 8080, Local: 18081}, {Name: "metrics", Port: 9090, Local: 9999}}},
			}},
		{name: "an unknown Service is refused", opts: AccessOptions{Only: []string{"db"}}, wantErr: `the release has no Service "db" to forward (it has web, api, headless)`},
		{name: "a Service of several ports needs the port named", opts: AccessOptions{Ports: map[string]int{"api": 9000}}, wantErr: "a local port is asked for api, which the release does not forward"},
		{name: "a port of a Service left out is refused", opts: AccessOptions{Only: []string{"web"}, Ports: map[string]int{"api:http": 9000}}, wantErr: "a local port is asked for api:http"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := accessRequests(services, tt.opts)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("accessRequests() error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("accessRequests() (-want +got):\n%s", diff)
			}
		})
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"examples/shop/release.toml": "examples/shop/release.toml",
		"my dir/release.toml":        "'my dir/release.toml'",
		"it's.toml":                  `'it'\''s.toml'`,
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}
