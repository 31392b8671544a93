package access

import (
	"strings"
	"testing"
)

func TestParseTarget(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Target
		err  bool
	}{
		{name: "a Service port", in: "service/registry:5000", want: Target{Kind: KindService, Name: "registry", Port: 5000}},
		{name: "a Deployment's container port", in: "deployment/web:8080", want: Target{Kind: KindDeployment, Name: "web", Port: 8080}},
		{name: "a Pod's container port", in: "pod/registry-0:5000", want: Target{Kind: KindPod, Name: "registry-0", Port: 5000}},
		{name: "no port", in: "service/registry", err: true},
		{name: "no kind", in: "registry:5000", err: true},
		{name: "an unknown kind", in: "node/registry:5000", err: true},
		{name: "a capitalised kind", in: "Service/registry:5000", err: true},
		{name: "a name with a slash", in: "service/a/b:5000", err: true},
		{name: "a name with a dot-dot", in: "pod/..:5000", err: true},
		{name: "an empty name", in: "service/:5000", err: true},
		{name: "port zero", in: "service/registry:0", err: true},
		{name: "a port past 65535", in: "service/registry:65536", err: true},
		{name: "a named port", in: "service/registry:http", err: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseTarget(tt.in)
			if tt.err {
				if err == nil || !strings.Contains(err.Error(), tt.in) {
					t.Errorf("ParseTarget(%q) = %+v, %v; want an error naming it", tt.in, got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("ParseTarget(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
			}
			if back := got.String(); back != tt.in {
				t.Errorf("ParseTarget(%q).String() = %q, want it back", tt.in, back)
			}
		})
	}
}
