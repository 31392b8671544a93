package release_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/pynenc/piceli/"

// imports maps each package of the module (without the module prefix) to
// the module packages it imports directly, tests excluded.
func imports(t *testing.T) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, module+"...")
	cmd.Dir = moduleDir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	m := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg := strings.TrimPrefix(f[0], module)
		m[pkg] = nil
		for _, imp := range f[1:] {
			if strings.HasPrefix(imp, module) {
				m[pkg] = append(m[pkg], strings.TrimPrefix(imp, module))
			}
		}
	}
	return m
}

// TestImportsPointOneWay keeps the architecture in the import graph: the
// command tree drives releases only through package release (plus the
// offline render, the sandbox, the scaffold, import (which makes a module
// rather than driving a release) and the public artifact package, whose
// builds and imports stand beside a release rather than inside one and
// which other programs embed too), the engine does not reach back up for
// secrets, compositions or the checks it is handed, the status core stays
// free of the cluster client, the operations lens (package observe, which
// other programs embed too) reads without driving releases, and no internal package depends on the
// public builder app (the protocol it writes is internal/wire).
func TestImportsPointOneWay(t *testing.T) {
	m := imports(t)
	checkLeaves(t, m)
	rules := []struct {
		pkg     string
		allowed []string // nil: anything not in denied
		denied  []string
	}{
		{pkg: "internal/cli", allowed: append([]string{"release", "artifact", "observe", "deploy", "controller", "api/v1alpha1", "internal/render", "internal/sandbox", "internal/scaffold", "internal/importer", "internal/codegen", "controller/install"}, leaves...)},
		// The controller's install is a release like any other: it goes
		// through package release, never the engine beneath it.
		{pkg: "controller/install", denied: []string{"internal/cli", "internal/apply", "internal/plan", "internal/kube", "internal/compose"}},
		// The operations lens reads; it never drives a release or the engine.
		{pkg: "observe", denied: []string{"release", "internal/apply", "internal/plan", "internal/journal", "internal/history", "internal/secret", "internal/compose", "internal/cli"}},
		{pkg: "internal/archive", denied: []string{"internal/kube", "internal/access", "release", "observe"}},
		{pkg: "deploy", denied: []string{"internal/apply", "internal/plan", "internal/kube", "internal/cli"}},
		{pkg: "internal/apply", denied: []string{"internal/secret", "internal/compose", "internal/check", "internal/access", "release", "app"}},
		{pkg: "internal/status", denied: []string{"internal/kube", "internal/access", "release"}},
		{pkg: "release", denied: []string{"internal/cli", "controller"}},
		// The controller is a program over package release: it never
		// reaches the engine, the planner or compositions around it, and
		// sources never drive a release.
		{pkg: "controller", denied: []string{"internal/apply", "internal/plan", "internal/journal", "internal/compose", "internal/cli"}},
		{pkg: "controller/source", denied: []string{"release", "controller", "internal/apply", "internal/kube", "internal/cli"}},
		{pkg: "api/v1alpha1", denied: []string{"release", "controller", "internal/cli"}},
		// Publishing writes and reads artifacts; CI and the controller share
		// it, so it never drives a release, the engine or a cluster.
		{pkg: "publish", denied: []string{"release", "internal/cli", "internal/apply", "internal/plan", "internal/kube", "internal/compose"}},
	}
	for _, r := range rules {
		deps, ok := m[r.pkg]
		if !ok {
			t.Fatalf("package %s not found by go list", r.pkg)
		}
		for _, d := range deps {
			if r.allowed != nil && !slices.Contains(r.allowed, d) {
				t.Errorf("%s imports %s; it may import only %v of this module", r.pkg, d, r.allowed)
			}
			if slices.Contains(r.denied, d) {
				t.Errorf("%s imports %s, against the import direction", r.pkg, d)
			}
		}
	}
	for pkg, deps := range m {
		if pkg != "internal/cli" && pkg != "cmd/piceli" && slices.Contains(deps, "internal/cli") {
			t.Errorf("%s imports the command tree", pkg)
		}
		if strings.HasPrefix(pkg, "internal/") && slices.Contains(deps, "app") {
			t.Errorf("%s imports the public builder app; read the composition protocol from internal/wire", pkg)
		}
	}
}

// leaves are the public packages that hold the documents and records the
// other public packages return (a plan, an object reference, ...): the
// engine's internal packages use their types too, so a leaf imports no
// package of the module but another leaf.
var leaves = []string{"archive", "object", "plan", "progress", "refusal", "specerr", "status", "wire"}

// checkLeaves fails on a leaf that imports a package of the module other
// than a leaf.
func checkLeaves(t *testing.T, m map[string][]string) {
	t.Helper()
	for _, leaf := range leaves {
		deps, ok := m[leaf]
		if !ok {
			t.Fatalf("leaf package %s not found by go list", leaf)
		}
		for _, d := range deps {
			if !slices.Contains(leaves, d) {
				t.Errorf("leaf package %s imports %s; a leaf imports only other leaves %v", leaf, d, leaves)
			}
		}
	}
}
