package retention_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/atomicfile"
	"github.com/pynenc/piceli/internal/graph"
	"github.com/pynenc/piceli/internal/history"
	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/retention"
	"github.com/pynenc/piceli/internal/secret"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// release is a state directory built with the writers piceli uses: plans
// by plan.Save, runs by apply.Engine (the plans have empty waves, so no
// cluster is needed) or journal.Writer, revisions by the engine's
// history.Add, secret versions by secret.Store.
type release struct {
	t     *testing.T
	dir   string
	plans map[int]*plan.Plan // by number, 1 the oldest stored
}

// storePlans stores plans 1 to n, plan i at t0 plus i minutes, with the
// number of empty waves waves gives it (none when absent).
func (r *release) storePlans(n int, waves map[int]int) {
	r.plans = map[int]*plan.Plan{}
	for i := 1; i <= n; i++ {
		p := &plan.Plan{
			Schema:  plan.Schema,
			Release: plan.Release{Name: "shop", Owner: "shop", FieldManager: "piceli-shop"},
			Target:  plan.Target{Server: "https://127.0.0.1:6443", Namespace: fmt.Sprintf("ns-%02d", i), ClusterUID: "uid-1"},
			Waves:   make([]graph.Wave, waves[i]),
		}
		hash, err := plan.Save(r.dir, p)
		if err != nil {
			r.t.Fatal(err)
		}
		at := t0.Add(time.Duration(i) * time.Minute)
		if err := os.Chtimes(filepath.Join(plan.Dir(r.dir), strings.TrimPrefix(hash, "sha256:")+".json"), at, at); err != nil {
			r.t.Fatal(err)
		}
		r.plans[i] = p
	}
}

// hashes returns the hashes of the plans numbered ns.
func (r *release) hashes(ns ...int) []string {
	var out []string
	for _, n := range ns {
		out = append(out, r.plans[n].Hash)
	}
	return out
}

// runID is the id of run i: the older, the smaller.
func runID(i int) string {
	return t0.Add(time.Duration(i)*time.Hour).Format("20060102-150405") + "-00000f"
}

func runIDs(is ...int) []string {
	var out []string
	for _, i := range is {
		out = append(out, runID(i))
	}
	return out
}

// how a test run ends.
type ending int

const (
	finishes ending = iota // a revision is recorded
	fails                  // after its first wave
	stops                  // on a stop request, after its first wave
)

// run has the engine apply plan p as run i.
func (r *release) run(i, p int, end ending, secrets map[string]int) {
	e := &apply.Engine{StateDir: r.dir}
	switch end {
	case fails:
		e.Options.AfterWave = func(context.Context, int) error { return errors.New("the cluster lease was lost") }
	case stops:
		e.Options.AfterWave = func(context.Context, int) error { return apply.RequestStop(r.dir, runID(i), "ana@box 42") }
	}
	res, err := e.Apply(r.t.Context(), runID(i), apply.Input{Plan: r.plans[p], Source: apply.SourceApply, Secrets: secrets})
	want := map[ending]journal.RunStatus{finishes: journal.StatusFinished, fails: journal.StatusFailed, stops: journal.StatusStopped}[end]
	if res == nil || res.Status != want {
		r.t.Fatalf("Apply(run %d) = %+v, %v; want it %s", i, res, err, want)
	}
}

// journal writes run i's journal directly: no engine writes it that way.
func (r *release) journal(i int, recs ...journal.Record) {
	if err := atomicfile.MkdirPrivate(apply.RunDir(r.dir, runID(i))); err != nil {
		r.t.Fatal(err)
	}
	w, err := journal.Create(apply.JournalPath(r.dir, runID(i)), journal.Options{})
	if err != nil {
		r.t.Fatal(err)
	}
	defer w.Close()
	if err := w.Append(recs...); err != nil {
		r.t.Fatal(err)
	}
}

// damaged makes run i with a journal that is not one.
func (r *release) damaged(i int) {
	if err := atomicfile.MkdirPrivate(apply.RunDir(r.dir, runID(i))); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(apply.JournalPath(r.dir, runID(i)), []byte("NOT A JOURNAL AT ALL"), 0o600); err != nil {
		r.t.Fatal(err)
	}
}

// secretVersions stores versions 1 to n of the secret name.
func (r *release) secretVersions(name string, n int) {
	store, err := secret.Open(r.dir)
	if err != nil {
		r.t.Fatal(err)
	}
	for v := 1; v <= n; v++ {
		if err := store.Save(&secret.Version{Secret: name, Number: v, Created: t0}); err != nil {
			r.t.Fatal(err)
		}
	}
}

// sixtyPlansThirtyRuns builds the state TestApply prunes:
//
//   - plans 1 to 60, stored in that order;
//   - runs 1 to 30, in age order, each applying one plan: run 2 failed
//     applying plan 2 and run 6 stopped applying plan 6, both resumable
//     and old; run 5 was compensated (plan 5); run 8's journal is
//     damaged; run 9 applied plan 3 and ran last, so it is the latest
//     although its id is old (a clock that went back); the other runs
//     finished: run 1 plan 1, run 3 plan 4, runs 4, 7 and 10 plans 31 to
//     33, runs 11 to 30 plans 34 to 53;
//   - a revision for each finished run, so revisions name plans 1, 3, 4
//     and 31 to 53; revisions of runs 1 and 3 use versions 2 and 3 of the
//     secret db, which has 15 versions; the secret api has 3.
func sixtyPlansThirtyRuns(t *testing.T) *release {
	r := &release{t: t, dir: t.TempDir()}
	r.storePlans(60, map[int]int{2: 1, 6: 2})
	r.secretVersions("db", 15)
	r.secretVersions("api", 3)
	r.run(1, 1, finishes, map[string]int{"db": 2, "api": 1})
	r.run(2, 2, fails, nil)
	r.run(3, 4, finishes, map[string]int{"db": 3})
	r.run(4, 31, finishes, nil)
	r.journal(5, journal.Record{Type: journal.RunStarted, Run: runID(5), Plan: r.plans[5].Hash},
		journal.Record{Type: journal.CompensateStarted}, journal.Record{Type: journal.Compensated})
	r.run(6, 6, stops, nil)
	r.run(7, 32, finishes, nil)
	r.damaged(8)
	r.run(10, 33, finishes, nil)
	for i := 11; i <= 30; i++ {
		r.run(i, 23+i, finishes, nil)
	}
	r.run(9, 3, finishes, nil)
	return r
}

func TestApplyKeepsExactlyWhatTheRuleNames(t *testing.T) {
	r := sixtyPlansThirtyRuns(t)
	revsBefore, err := history.Summaries(r.dir)
	if err != nil || len(revsBefore) != 26 {
		t.Fatalf("Summaries() before Apply = %d revisions, %v; want 26", len(revsBefore), err)
	}
	var newestRuns, newestPlans []int
	for i := 11; i <= 30; i++ {
		newestRuns = append(newestRuns, i)
	}
	for i := 11; i <= 60; i++ {
		newestPlans = append(newestPlans, i)
	}
	want := retention.Report{
		Plans: tally(r.hashes(append([]int{1, 2, 3, 4, 6}, newestPlans...)...), r.hashes(5, 7, 8, 9, 10)),
		Runs:  tally(runIDs(append([]int{2, 6, 8, 9}, newestRuns...)...), runIDs(1, 3, 4, 5, 7, 10)),
		SecretVersions: tally(
			[]string{"api/1", "api/2", "api/3", "db/2", "db/3", "db/6", "db/7", "db/8", "db/9", "db/10", "db/11", "db/12", "db/13", "db/14", "db/15"},
			[]string{"db/1", "db/4", "db/5"}),
	}

	got, err := retention.Apply(r.dir, retention.Rule{})
	if err != nil {
		t.Fatalf("Apply() error = %v", err)
	}
	if len(got.Warnings) != 1 || !strings.Contains(got.Warnings[0], runID(8)) {
		t.Errorf("Apply() warnings = %q, want one naming the unreadable run %s", got.Warnings, runID(8))
	}
	got.Warnings = nil
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Apply() report (-want +got):\n%s", diff)
	}
	r.assertOnDisk(want)
	if revs, err := history.List(r.dir); err != nil || len(revs) != len(revsBefore) {
		t.Errorf("history.List() after Apply = %d revisions, %v; want all %d, read from their files", len(revs), err, len(revsBefore))
	}
	r.assertResumable(2, 2, journal.StatusFailed)
	r.assertResumable(6, 6, journal.StatusStopped)
	if latest, err := apply.LatestRun(r.dir); err != nil || latest != runID(9) {
		t.Errorf("LatestRun() after Apply = %q, %v; want %s", latest, err, runID(9))
	}

	again, err := retention.Apply(r.dir, retention.Rule{})
	if err != nil {
		t.Fatalf("second Apply() error = %v", err)
	}
	again.Warnings = nil
	wantAgain := retention.Report{Plans: tally(want.Plans.Kept, nil), Runs: tally(want.Runs.Kept, nil), SecretVersions: tally(want.SecretVersions.Kept, nil)}
	if diff := cmp.Diff(wantAgain, again); diff != "" {
		t.Errorf("second Apply() removed something (-want +got):\n%s", diff)
	}
}

func tally(kept, removed []string) retention.Tally {
	return retention.Tally{Kept: append([]string{}, kept...), Removed: append([]string{}, removed...), KeptCount: len(kept), RemovedCount: len(removed)}
}

// assertOnDisk checks that the state directory holds exactly the plans,
// runs and secret versions a report says were kept.
func (r *release) assertOnDisk(want retention.Report) {
	r.t.Helper()
	stored, err := plan.List(r.dir)
	var plans []string
	for _, p := range stored {
		plans = append(plans, p.Hash)
	}
	if diff := cmp.Diff(want.Plans.Kept, plans); err != nil || diff != "" {
		r.t.Errorf("plan.List() after Apply: %v (-want +got):\n%s", err, diff)
	}
	runs, err := apply.Runs(r.dir)
	if diff := cmp.Diff(want.Runs.Kept, runs); err != nil || diff != "" {
		r.t.Errorf("apply.Runs() after Apply: %v (-want +got):\n%s", err, diff)
	}
	var versions []string
	store := secret.View(r.dir)
	for _, name := range []string{"api", "db"} {
		ns, _ := store.Versions(name)
		for _, n := range ns {
			versions = append(versions, fmt.Sprintf("%s/%d", name, n))
		}
	}
	if diff := cmp.Diff(want.SecretVersions.Kept, versions); diff != "" {
		r.t.Errorf("secret versions after Apply (-want +got):\n%s", diff)
	}
	if left, _ := filepath.Glob(filepath.Join(r.dir, "runs", ".*")); len(left) > 0 {
		r.t.Errorf("runs/ holds %q after Apply, want nothing half removed", left)
	}
}

// assertResumable checks what resume needs of run i, which applies plan p:
// its journal replays, it can be resumed, and its plan loads.
func (r *release) assertResumable(i, p int, status journal.RunStatus) {
	r.t.Helper()
	st, _, err := apply.Inspect(r.dir, runID(i))
	if err != nil || st.Status != status || st.Plan != r.plans[p].Hash || !apply.Resumable(st) {
		r.t.Errorf("Inspect(run %d) after Apply = %s of plan %s, %v; want a resumable %s run of plan %d", i, st.Status, plan.ShortHash(st.Plan), err, status, p)
	}
	if _, _, err := plan.Load(r.dir, st.Plan); err != nil {
		r.t.Errorf("plan.Load(the plan of run %d) after Apply: %v", i, err)
	}
}

func TestApplyRuleOverridesTheDefaults(t *testing.T) {
	r := &release{t: t, dir: t.TempDir()}
	r.storePlans(5, nil)
	r.secretVersions("db", 3)
	for i := 1; i <= 3; i++ {
		r.run(i, 1, finishes, nil)
	}
	got, err := retention.Apply(r.dir, retention.Rule{Plans: 2, Runs: 1, SecretVersions: 1})
	if err != nil {
		t.Fatalf("Apply() error = %v", err)
	}
	want := retention.Report{
		Plans:          tally(r.hashes(1, 4, 5), r.hashes(2, 3)),
		Runs:           tally(runIDs(3), runIDs(1, 2)),
		SecretVersions: tally([]string{"db/3"}, []string{"db/1", "db/2"}),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Apply(Rule{Plans: 2, Runs: 1, SecretVersions: 1}) (-want +got):\n%s", diff)
	}
}

func TestApplyToAnEmptyStateDirectory(t *testing.T) {
	got, err := retention.Apply(t.TempDir(), retention.Rule{})
	if err != nil {
		t.Fatalf("Apply() error = %v", err)
	}
	data, _ := json.Marshal(got)
	empty := `{"kept":[],"removed":[],"keptCount":0,"removedCount":0}`
	if want := `{"plans":` + empty + `,"runs":` + empty + `,"secretVersions":` + empty + `}`; string(data) != want {
		t.Errorf("json.Marshal(Apply()) = %s, want %s", data, want)
	}
	if want := "removed 0 plans (kept 0), 0 runs (kept 0), 0 secret versions (kept 0)"; got.String() != want {
		t.Errorf("Apply().String() = %q, want %q", got.String(), want)
	}
}
