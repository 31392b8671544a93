package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// A state directory belongs to one release. Another release whose spec
// names the same state_dir is refused by every command that uses it
// (exit 2, naming both releases and the directory) before it reads or
// writes anything there. A directory from before owner files is adopted by
// the first release that writes to it, not by one that only reads it.
func TestStateDirOfAnotherReleaseRefused(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	r := newRelease(t, sb, "", map[string]string{"cm-a.yaml": configMapYAML("a", "value", "1")})
	p := r.plan(t)
	r.apply(t, p)
	otherSpec := otherRelease(t, sb, r.stateDir)

	before := dirSnapshot(t, r.stateDir)
	for _, args := range [][]string{
		{"plan"}, {"diff"}, {"apply", "--approve", p.Hash}, {"resume"}, {"stop"},
		{"rollback"}, {"rollback", "--to", "1"}, {"history"}, {"run"}, {"gc"}, {"secret", "show", "token"},
	} {
		res := run(t, append(append([]string{"release"}, args...), "--spec", otherSpec)...)
		names := "state directory " + r.stateDir + ` belongs to release "demo" in namespace "` + r.ns + `", not release "other"`
		if res.code != ExitRefused || !strings.Contains(res.stderr, names) {
			t.Errorf("release %s of the other release: exit %d, stderr:\n%s\nwant exit 2 saying %q", strings.Join(args, " "), res.code, res.stderr, names)
		}
	}
	if diff := cmp.Diff(before, dirSnapshot(t, r.stateDir)); diff != "" {
		t.Errorf("the other release's refused commands changed the state directory (-before +after):\n%s", diff)
	}

	owner := filepath.Join(r.stateDir, "owner.json")
	if err := os.Remove(owner); err != nil {
		t.Fatalf("remove the owner file, as a directory from before owner files: %v", err)
	}
	if res := run(t, "release", "history", "--spec", r.spec); res.code != ExitOK {
		t.Errorf("history of the unrecorded directory: exit %d\n%s", res.code, res.stderr)
	}
	if _, err := os.Stat(owner); !os.IsNotExist(err) {
		t.Errorf("history adopted the directory (stat owner.json: %v); only a write should", err)
	}
	r.plan(t)
	if res := run(t, "release", "history", "--spec", otherSpec); res.code != ExitRefused {
		t.Errorf("history of the other release once plan adopted the directory: exit %d, want 2\n%s", res.code, res.stderr)
	}
}

// otherRelease writes the spec of a release named other, in another
// namespace, whose state_dir is stateDir, and returns its path.
func otherRelease(t *testing.T, sb *sandboxtest.Sandbox, stateDir string) string {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"release.toml": fmt.Sprintf("[target]\nkubeconfig = %q\ncontext = %q\nnamespace = %q\n\n[release]\nname = \"other\"\ncomposition = \"manifests\"\nstate_dir = %q\n",
			sb.Kubeconfig, sb.Context, sb.Namespace(t), stateDir),
		"manifests/cm.yaml": configMapYAML("b", "value", "2"),
	})
	return filepath.Join(dir, "release.toml")
}
