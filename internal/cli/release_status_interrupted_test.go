package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// A run whose holder was killed (kill -9) is not running: "release run"
// says running and names the holder while it lives, then interrupted, that
// the holder is gone and how to resume. "release stop" of the killed run
// says there is nothing to stop (exit 2) and leaves no request, so the
// next resume finishes instead of stopping at once.
func TestStatusAndStopOfKilledRun(t *testing.T) {
	t.Parallel()
	sb := sandboxtest.Cluster(t)
	r := newRelease(t, sb, "", smallManifests())
	p := r.plan(t)
	proc := startPiceli(t, apply.FailAfterIntent+":1:5m", "release", "apply", "--spec", r.spec, "--approve", p.Hash)
	r.waitForJournal(t, "an intent", func(st journal.State) bool { return len(st.Steps) > 0 })
	pid := "pid " + strconv.Itoa(proc.cmd.Process.Pid)

	if got := r.runStatus(t); got.Phase != "running" || !strings.Contains(got.Holder, pid) {
		t.Errorf("status -o json of the live run: %+v, want running by %s", got, pid)
	}
	if res := run(t, "release", "run", "--spec", r.spec); !strings.Contains(res.stdout, ": running") || !strings.Contains(res.stdout, "run by ") {
		t.Errorf("release run of the live run:\n%s\nwant it running and who runs it", res.stdout)
	}

	proc.cmd.Process.Kill()
	if got := proc.wait(t, 10*time.Second); got != "killed" {
		t.Fatalf("holder ended with %s, want killed", got)
	}
	res := run(t, "release", "run", "--spec", r.spec)
	for _, want := range []string{": interrupted", pid + " ", "is gone", "continue it with: piceli release resume --spec " + r.spec} {
		if res.code != ExitOK || !strings.Contains(res.stdout, want) {
			t.Errorf("release run after kill -9: exit %d\n%s\nwant it to contain %q", res.code, res.stdout, want)
		}
	}
	if got := r.runStatus(t); got.Phase != "interrupted" || !strings.Contains(got.Holder, pid) {
		t.Errorf("status -o json after kill -9: %+v, want interrupted, last run by %s", got, pid)
	}

	before := dirSnapshot(t, r.stateDir)
	stop := run(t, "release", "stop", "--spec", r.spec)
	if stop.code != ExitRefused || !strings.Contains(stop.stderr, "nothing to stop") || !strings.Contains(stop.stderr, pid) {
		t.Errorf("release stop of the killed run: exit %d\n%s\nwant exit 2 saying there is nothing to stop, naming %s", stop.code, stop.stderr, pid)
	}
	if diff := cmp.Diff(before, dirSnapshot(t, r.stateDir)); diff != "" {
		t.Errorf("the refused stop changed the state directory (-before +after):\n%s", diff)
	}

	resume := run(t, "release", "resume", "--spec", r.spec)
	if resume.code != ExitOK {
		t.Fatalf("resume after the refused stop: exit %d\n%s", resume.code, resume.stderr)
	}
	r.assertFinished(t, p)
}

// runStatus runs "release run -o json" and returns its run.
func (r *testRelease) runStatus(t *testing.T) struct{ Phase, Holder string } {
	t.Helper()
	res := run(t, "release", "run", "--spec", r.spec, "-o", "json")
	var doc struct {
		Run struct{ Phase, Holder string } `json:"run"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &doc); res.code != ExitOK || err != nil {
		t.Fatalf("release run -o json: exit %d, %v\n%s%s", res.code, err, res.stdout, res.stderr)
	}
	return doc.Run
}

// dirSnapshot maps every file under dir to its mode and content.
func dirSnapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		out[rel] = info.Mode().String()
		if !d.IsDir() {
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			out[rel] += " " + string(data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
