package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// "release gc" keeps what an unfinished run needs: after a run is killed
// mid-apply and sixty newer plans are stored, gc with a small rule removes
// the old plans but not the run or its plan, and "release resume" still
// finishes the run.
func TestGCKeepsWhatResumeNeeds(t *testing.T) {
	t.Parallel()
	sb := sandboxtest.Cluster(t)
	r := newRelease(t, sb, "", smallManifests())
	p := r.plan(t)
	killed := startPiceli(t, apply.FailAfterOutcome+":1", "release", "apply", "--spec", r.spec, "--approve", p.Hash)
	if got := killed.wait(t, time.Minute); got != "killed" {
		t.Fatalf("apply at %s ended with %s, want killed:\n%s", apply.FailAfterOutcome, got, killed.out.String())
	}
	newer := storeNewerPlans(t, r.stateDir, p, 60)

	res := run(t, "release", "gc", "--spec", r.spec, "--keep-plans", "5", "--keep-runs", "1", "-o", "json")
	if res.code != ExitOK {
		t.Fatalf("release gc: exit %d\n%s", res.code, res.stderr)
	}
	var got struct {
		Report struct {
			Plans struct {
				Kept, Removed []string
			}
		}
	}
	if err := json.Unmarshal([]byte(res.stdout), &got); err != nil {
		t.Fatalf("release gc -o json: %v\n%s", err, res.stdout)
	}
	kept := got.Report.Plans.Kept
	wantKept := append(slices.Clone(newer[len(newer)-5:]), p.Hash)
	slices.Sort(kept)
	slices.Sort(wantKept)
	if !slices.Equal(kept, wantKept) || len(got.Report.Plans.Removed) != 55 {
		t.Errorf("gc kept plans %v and removed %d; want the 5 newest plus the unfinished run's plan %s, and 55 removed", kept, len(got.Report.Plans.Removed), plan.ShortHash(p.Hash))
	}
	if _, st := r.latestRun(t); st.Status != journal.StatusRunning {
		t.Fatalf("after gc the killed run is %s, want still running (resumable)", st.Status)
	}

	if res := run(t, "release", "resume", "--spec", r.spec); res.code != ExitOK {
		t.Fatalf("release resume after gc: exit %d\n%s", res.code, res.stderr)
	}
	r.assertFinished(t, p)
}

// storeNewerPlans stores n plans of other namespaces, each stored after p
// (by modification time, as retention orders them), and returns their
// hashes oldest first.
func storeNewerPlans(t *testing.T, stateDir string, p *plan.Plan, n int) []string {
	t.Helper()
	base, err := os.Stat(filepath.Join(plan.Dir(stateDir), strings.TrimPrefix(p.Hash, "sha256:")+".json"))
	if err != nil {
		t.Fatalf("the approved plan's file: %v", err)
	}
	var hashes []string
	for i := range n {
		c := *p
		c.Target.Namespace = fmt.Sprintf("other-%03d", i)
		h, err := plan.Save(stateDir, &c)
		if err != nil {
			t.Fatal(err)
		}
		at := base.ModTime().Add(time.Duration(i+1) * time.Minute)
		if err := os.Chtimes(filepath.Join(plan.Dir(stateDir), strings.TrimPrefix(h, "sha256:")+".json"), at, at); err != nil {
			t.Fatal(err)
		}
		hashes = append(hashes, h)
	}
	return hashes
}
