package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pynenc/piceli/internal/sandbox"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

func TestSandboxRefusesBadInput(t *testing.T) {
	dir := t.TempDir()
	tests := map[string][]string{
		"a name that is not a DNS label": {"sandbox", "up", "--name", "Bad_Name", "--dir", dir},
		"an unknown output format":       {"sandbox", "status", "--dir", dir, "-o", "yaml"},
		"an argument":                    {"sandbox", "down", "extra", "--dir", dir},
	}
	for name, args := range tests {
		t.Run(name, func(t *testing.T) {
			if r := run(t, args...); r.code != ExitRefused {
				t.Fatalf("piceli %s: exit %d, want %d; stderr %q", strings.Join(args, " "), r.code, ExitRefused, r.stderr)
			}
		})
	}
}

func TestSandboxStatusOfStoppedSandboxExitsOne(t *testing.T) {
	r := run(t, "sandbox", "status", "--name", "never", "--dir", t.TempDir())
	if r.code != ExitFailed || !strings.Contains(r.stdout, `sandbox "never" running: false`) ||
		!strings.Contains(r.stderr, "piceli sandbox up --name never") {
		t.Fatalf("status of a stopped sandbox = exit %d, stdout %q, stderr %q; want exit 1 and how to start it", r.code, r.stdout, r.stderr)
	}
}

func TestSandboxStatusJSONOfRunningSandbox(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	r := run(t, "sandbox", "status", "--name", sb.Name, "--dir", sb.Dir, "-o", "json")
	if r.code != ExitOK {
		t.Fatalf("sandbox status: exit %d, stderr %q", r.code, r.stderr)
	}
	var st sandbox.Status
	if err := json.Unmarshal([]byte(r.stdout), &st); err != nil {
		t.Fatalf("sandbox status -o json: %v\n%s", err, r.stdout)
	}
	if st.Schema != sandbox.StatusSchema || !st.Running || st.Context != sb.Context || len(st.Components) != 5 {
		t.Fatalf("sandbox status -o json = %+v; want schema %s, running, context %s, 5 components", st, sandbox.StatusSchema, sb.Context)
	}
}
