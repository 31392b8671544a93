package spec

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// [deploy] and [telemetry] are read like every other table: paths resolve
// against the spec, defaults fill what is left out.
func TestParseDeployAndTelemetry(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	dir := t.TempDir()
	src := good + "\n[deploy]\ndeliver = \"containerd\"\ncontainerd_address = \"node/containerd.sock\"\n" +
		"\n[telemetry]\notlp_endpoint = \"http://127.0.0.1:4318\"\n"
	s, err := Parse(filepath.Join(dir, "release.toml"), []byte(src))
	if err != nil {
		t.Fatalf("Parse() error: %v", err)
	}
	want := Deploy{Deliver: DeliverContainerd, ContainerdAddress: filepath.Join(dir, "node", "containerd.sock")}
	if diff := cmp.Diff(want, s.Deploy); diff != "" {
		t.Errorf("Parse().Deploy mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(Telemetry{OTLPEndpoint: "http://127.0.0.1:4318", ExportTimeout: 3 * time.Second}, s.Telemetry); diff != "" {
		t.Errorf("Parse().Telemetry mismatch (-want +got):\n%s", diff)
	}
	plain, err := Parse(filepath.Join(dir, "release.toml"), []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if plain.Deploy.Deliver != DeliverNone || plain.Telemetry.OTLPEndpoint != "" {
		t.Errorf("Parse() of a spec without the tables = %+v %+v, want deliver none and no endpoint", plain.Deploy, plain.Telemetry)
	}
}

func TestParseDeployAndTelemetryRefuseBadValues(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	tests := []struct {
		name, table, want string
	}{
		{"an unknown delivery", "[deploy]\ndeliver = \"ftp\"", `deploy.deliver: "ftp": want "none", "containerd" or "registry"`},
		{"an unknown key", "[deploy]\ndeliver = \"registry\"\nregistri = \"x\"", `deploy.registri: unknown key (known keys: deliver, containerd_address, containerd_namespace, registry)`},
		{"a registry delivery without its registry", "[deploy]\ndeliver = \"registry\"", `deploy.registry: required with deliver = "registry"`},
		{"a containerd address without containerd", "[deploy]\ncontainerd_address = \"/run/c.sock\"", `deploy.containerd_address: is used only with deliver = "containerd"`},
		{"an endpoint that is not http", "[telemetry]\notlp_endpoint = \"ftp://127.0.0.1\"", `telemetry.otlp_endpoint: "ftp://127.0.0.1": want an http:// or https:// URL`},
		{"an endpoint with credentials", "[telemetry]\notlp_endpoint = \"http://u:secret@127.0.0.1:4318\"", `telemetry.otlp_endpoint: the endpoint must not carry credentials`},
		{"a timeout above the hard maximum", "[telemetry]\nexport_timeout = \"11s\"", `telemetry.export_timeout: "11s" is above the hard maximum of 10s`},
		{"a timeout of the wrong type", "[telemetry]\nexport_timeout = 3", `telemetry.export_timeout: wrong type: want string, have integer`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("release.toml", []byte(good+"\n"+tt.table+"\n"))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Parse() error = %v, want it to contain %s", err, tt.want)
			}
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("Parse() error %q repeats the endpoint's credentials", err)
			}
			if !strings.Contains(err.Error(), "release.toml:") {
				t.Errorf("Parse() error %q names no file and line", err)
			}
		})
	}
}
