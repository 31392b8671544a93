package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
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
		"no nodes":                       {"sandbox", "up", "--nodes", "0", "--dir", dir},
		"an agent without a kubeconfig":  {"sandbox", "agent", "--volume-dir", dir},
		"an agent with a relative dir":   {"sandbox", "agent", "--kubeconfig", "k.yaml", "--volume-dir", "volumes"},
	}
	for name, args := range tests {
		t.Run(name, func(t *testing.T) {
			if r := run(t, args...); r.code != ExitRefused {
				t.Fatalf("piceli %s: exit %d, want %d; stderr %q", strings.Join(args, " "), r.code, ExitRefused, r.stderr)
			}
		})
	}
}

func TestSandboxDownOfANeverStartedSandboxJSON(t *testing.T) {
	dir := t.TempDir()
	doc := wantSchema(t, run(t, "sandbox", "down", "--name", "never", "--dir", dir, "-o", "json"), "sandbox down -o json", "piceli.sandbox-down/v1")
	if doc["name"] != "never" || doc["stopped"] != false {
		t.Errorf("sandbox down -o json of a sandbox never started: %v, want name never and stopped false", doc)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("sandbox down of a sandbox never started wrote %d entries into its directory", len(entries))
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
	if st.Schema != sandbox.StatusSchema || !st.Running || st.Context != sb.Context {
		t.Fatalf("sandbox status -o json = %+v; want schema %s, running, context %s", st, sandbox.StatusSchema, sb.Context)
	}
	// The control plane at least; a sandbox may run components of its own
	// (its agent) beside it.
	running := map[string]bool{}
	for _, c := range st.Components {
		running[c.Name] = c.Running && c.PID > 0
	}
	for _, name := range []string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok-controller"} {
		if !running[name] {
			t.Errorf("sandbox status -o json lists %s not running (components %+v)", name, st.Components)
		}
	}
}

// The sandbox that `piceli sandbox up` starts lists its agent, running,
// with its pid, and the agent runs from the piceli binary.
func TestSandboxStatusListsTheAgent(t *testing.T) {
	t.Parallel()
	sb := appsSandbox(t)
	r := run(t, "sandbox", "status", "--name", sb.Name, "--dir", sb.Dir, "-o", "json")
	var st sandbox.Status
	if err := json.Unmarshal([]byte(r.stdout), &st); r.code != ExitOK || err != nil {
		t.Fatalf("sandbox status: exit %d, %v\n%s%s", r.code, err, r.stdout, r.stderr)
	}
	i := slices.IndexFunc(st.Components, func(c sandbox.ComponentStatus) bool { return c.Name == sandbox.AgentName })
	if i < 0 {
		t.Fatalf("sandbox status lists %+v; want %s among them", st.Components, sandbox.AgentName)
	}
	agent := st.Components[i]
	if !agent.Running || agent.PID <= 0 || len(agent.Listen) != 0 || !strings.HasPrefix(agent.Version, "piceli version") {
		t.Errorf("%s = %+v; want running with a pid, listening nowhere, a piceli binary", sandbox.AgentName, agent)
	}
	text := run(t, "sandbox", "status", "--name", sb.Name, "--dir", sb.Dir)
	if !strings.Contains(text.stdout, sandbox.AgentName) || !strings.Contains(text.stdout, fmt.Sprintf("pid %-7d", agent.PID)) {
		t.Errorf("sandbox status text does not list %s with pid %d:\n%s", sandbox.AgentName, agent.PID, text.stdout)
	}
}
