package app

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestHandles(t *testing.T) {
	a := New("demo")
	web := a.Deployment("web", Image("x"), Ports(80))
	sa := a.ServiceAccount("sa")
	tests := []struct {
		name     string
		handle   Handle
		wantName string
		wantKind string
	}{
		{name: "a workload is named after its component", handle: web, wantName: "web", wantKind: "Deployment"},
		{name: "a service is named after its workload", handle: a.Service(web), wantName: "web", wantKind: "Service"},
		{name: "a config map handle names its config map", handle: a.ConfigMap("cm", Data("k", "v")), wantName: "cm", wantKind: "ConfigMap"},
		{name: "a secret handle names its secret", handle: a.Secret("s", Generated("k", 8)), wantName: "s", wantKind: "Secret"},
		{name: "a claim handle names its claim", handle: a.PersistentVolumeClaim("c", Storage("1Gi")), wantName: "c", wantKind: "PersistentVolumeClaim"},
		{name: "a service account handle names its account", handle: sa, wantName: "sa", wantKind: "ServiceAccount"},
		{name: "a role handle names its role", handle: a.Role("r", Permit("", "pods", "get")), wantName: "r", wantKind: "Role"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.handle.Name(); got != tt.wantName {
				t.Errorf("Name() = %q, want %q", got, tt.wantName)
			}
			if got := tt.handle.Kind(); got != tt.wantKind {
				t.Errorf("Kind() = %q, want %q", got, tt.wantKind)
			}
		})
	}
	want := []PortInfo{{Port: 80, Protocol: "TCP"}}
	if diff := cmp.Diff(want, web.Ports()); diff != "" {
		t.Errorf("Workload.Ports() (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]PortInfo{{Name: "tcp-80", Port: 80, Protocol: "TCP"}}, a.Service(web).Ports()); diff != "" {
		t.Errorf("Service.Ports() (-want +got):\n%s", diff)
	}
}
