package cli

import (
	"os"
	"regexp"
	"testing"
	"time"

	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/history"
	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// A run's revision is part of its recoverable state: an apply killed after
// storing the revision and before journaling the run finished is completed
// by "release resume", and so is one whose run-finished record was torn.
// Either way the run is exactly one revision, and a rollback without --to
// then goes back to the revision before it.
func TestRevisionSurvivesACrashAtTheRunsEnd(t *testing.T) {
	t.Parallel()
	sb := sandboxtest.Cluster(t)
	piceliBinary(t)
	tests := []struct {
		name string
		// end applies p, the second revision, and leaves its run as the
		// crash the case names.
		end func(t *testing.T, r *testRelease, p *plan.Plan)
	}{
		{
			name: "killed between the revision and run-finished",
			end: func(t *testing.T, r *testRelease, p *plan.Plan) {
				proc := startPiceli(t, apply.FailAfterRevision, "release", "apply", "--spec", r.spec, "--approve", p.Hash)
				if got := proc.wait(t, time.Minute); got != "killed" {
					t.Fatalf("apply with %s=%s: %s, want killed; output:\n%s", apply.FailpointEnv, apply.FailAfterRevision, got, proc.out.String())
				}
			},
		},
		{
			name: "run-finished torn",
			end: func(t *testing.T, r *testRelease, p *plan.Plan) {
				r.apply(t, p)
				id, _ := r.latestRun(t)
				path := apply.JournalPath(r.stateDir, id)
				st, err := os.Stat(path)
				if err != nil {
					t.Fatal(err)
				}
				// One byte short, the last record's checksum is past EOF: a
				// torn tail, which resume repairs.
				if err := os.Truncate(path, st.Size()-1); err != nil {
					t.Fatal(err)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newRelease(t, sb, "", map[string]string{"cm.yaml": configMapYAML("settings", "mode", "fast")})
			r.apply(t, r.plan(t))
			r.setManifest(t, "cm.yaml", configMapYAML("settings", "mode", "slow"))
			p := r.plan(t)
			tt.end(t, r, p)
			id, st := r.latestRun(t)
			if st.Status != journal.StatusRunning {
				t.Fatalf("journal of run %s says %s before the resume, want running (interrupted)", id, st.Status)
			}
			assertRevisionsOfRuns(t, r.stateDir, id)

			res := run(t, "release", "resume", "--spec", r.spec)
			if res.code != ExitOK {
				t.Fatalf("release resume: exit %d\n%s", res.code, res.stderr)
			}
			r.assertFinished(t, p)
			assertRevisionsOfRuns(t, r.stateDir, id)

			propose := run(t, "release", "rollback", "--spec", r.spec)
			if propose.code != ExitApproval || !regexp.MustCompile(`--to 1 --approve [0-9a-f]{12}`).MatchString(propose.stderr) {
				t.Errorf("rollback without --to: exit %d, stderr:\n%s\nwant exit 3 proposing revision 1", propose.code, propose.stderr)
			}
		})
	}
}

// assertRevisionsOfRuns checks the history holds two revisions, the first
// of an earlier run and the second of run: one revision per run.
func assertRevisionsOfRuns(t *testing.T, stateDir, run string) {
	t.Helper()
	revs, err := history.List(stateDir)
	if err != nil {
		t.Fatal(err)
	}
	var runs []string
	for _, rev := range revs {
		runs = append(runs, rev.Run)
	}
	if len(revs) != 2 || revs[0].Run == run || revs[1].Run != run || revs[1].Number != 2 {
		t.Errorf("history holds revisions of runs %q, want two: an earlier run's, then %s's as revision 2", runs, run)
	}
}
