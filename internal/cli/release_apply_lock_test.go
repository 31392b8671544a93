package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// A second apply of a release while one runs is refused naming the
// holder, from the same state directory (file lock) and from another one
// (the cluster Lease, as for an operator on another machine). Once the
// holder is killed, resume proceeds at once without manual steps.
func TestSecondApplyRefusedUntilHolderDies(t *testing.T) {
	t.Parallel()
	sb := sandboxtest.Cluster(t)
	r := newRelease(t, sb, "", smallManifests())
	p := r.plan(t)
	other := copyRelease(t, r)
	proc := startPiceli(t, apply.FailAfterIntent+":1:5m", "release", "apply", "--spec", r.spec, "--approve", p.Hash)
	r.waitForJournal(t, "an intent", func(st journal.State) bool { return len(st.Steps) > 0 })
	pid := "pid " + strconv.Itoa(proc.cmd.Process.Pid)

	for _, second := range []struct{ from, spec, lock string }{
		{"the same state directory", r.spec, "(file " + r.stateDir},
		{"another state directory", other.spec, "(lease " + r.ns + "/piceli-release-demo)"},
	} {
		res := run(t, "release", "apply", "--spec", second.spec, "--approve", p.Hash)
		if res.code != ExitRefused || !strings.Contains(res.stderr, "release is locked by") || !strings.Contains(res.stderr, pid) || !strings.Contains(res.stderr, second.lock) {
			t.Errorf("second apply from %s: exit %d, stderr:\n%s\nwant exit 2 naming the holder's %s and %q", second.from, res.code, res.stderr, pid, second.lock)
		}
	}
	if _, err := os.Stat(apply.RunDir(other.stateDir, "")); !os.IsNotExist(err) {
		t.Errorf("the refused apply from the other state directory started a run (stat: %v)", err)
	}

	proc.cmd.Process.Kill()
	if got := proc.wait(t, 10*time.Second); got != "killed" {
		t.Fatalf("holder ended with %s, want killed", got)
	}
	start := time.Now()
	res := run(t, "release", "resume", "--spec", r.spec)
	if res.code != ExitOK {
		t.Fatalf("resume after the holder was killed: exit %d\n%s", res.code, res.stderr)
	}
	// The Lease lasts 30s; taking it over from the dead pid must not wait.
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("resume took %s: it waited for the dead holder's Lease to expire", d)
	}
	r.assertFinished(t, p)
	leases, err := sb.Clientset.CoordinationV1().Leases(r.ns).List(t.Context(), metav1.ListOptions{})
	if err != nil || len(leases.Items) != 0 {
		t.Errorf("after the run the namespace holds Leases %v (%v), want none", leases, err)
	}
}

// copyRelease copies a release's directory, its stored plans and key
// included, as a second operator with the same files would have it.
func copyRelease(t *testing.T, r *testRelease) *testRelease {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Dir(r.spec)
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		writeFiles(t, dir, map[string]string{rel: string(data)})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	c := *r
	c.spec, c.stateDir = filepath.Join(dir, "release.toml"), filepath.Join(dir, ".piceli-release")
	return &c
}
