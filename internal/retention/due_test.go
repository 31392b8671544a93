package retention_test

import (
	"testing"

	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/retention"
	"github.com/pynenc/piceli/internal/secret"
)

// Due says whether Apply could remove a run or a plan, and it agrees with
// Apply: not due, Apply removes none; due, it removes some.
func TestDueIsWhetherApplyWouldRemoveARunOrAPlan(t *testing.T) {
	cases := []struct {
		name         string
		plans, runs  int
		rule         retention.Rule
		want         bool
		damagedFirst bool
	}{
		{"within every limit", 3, 3, retention.Rule{}, false, false},
		{"within every limit, a journal damaged", 3, 3, retention.Rule{}, false, true},
		{"more runs than kept", 4, 4, retention.Rule{Runs: 2}, true, false},
		{"more plans than kept", 4, 1, retention.Rule{Plans: 2}, true, false},
		{"exactly as many as kept", 2, 2, retention.Rule{Plans: 2, Runs: 2}, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := &release{t: t, dir: t.TempDir()}
			r.storePlans(tc.plans, nil)
			first := 1
			if tc.damagedFirst {
				r.damaged(1)
				first = 2
			}
			for i := first; i <= tc.runs; i++ {
				r.run(i, i, finishes, nil)
			}
			got, err := retention.Due(r.dir, tc.rule)
			if err != nil || got != tc.want {
				t.Fatalf("Due() = %v, %v; want %v", got, err, tc.want)
			}
			rep, err := retention.Apply(r.dir, tc.rule)
			if err != nil {
				t.Fatal(err)
			}
			if removed := rep.Runs.RemovedCount + rep.Plans.RemovedCount; (removed > 0) != tc.want {
				t.Errorf("Due() = %v, but Apply removed %d runs and %d plans", got, rep.Runs.RemovedCount, rep.Plans.RemovedCount)
			}
		})
	}
}

// AfterRun removes what Apply removes when it is due, and otherwise keeps
// every run and plan and still prunes secret versions.
func TestAfterRunPrunesSecretsAlwaysAndRunsOnlyWhenDue(t *testing.T) {
	for _, tc := range []struct {
		name     string
		runs     int
		wantRuns int
	}{
		{"within the rule", 3, 3},
		{"more runs than the rule keeps", 22, 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &release{t: t, dir: t.TempDir()}
			r.storePlans(tc.runs, nil)
			r.secretVersions("db", 15)
			for i := 1; i <= tc.runs; i++ {
				r.run(i, i, finishes, nil)
			}
			if err := retention.AfterRun(r.dir); err != nil {
				t.Fatal(err)
			}
			runs, err := apply.Runs(r.dir)
			if err != nil || len(runs) != tc.wantRuns {
				t.Errorf("after AfterRun: %d runs, %v; want %d", len(runs), err, tc.wantRuns)
			}
			versions, err := secret.View(r.dir).Versions("db")
			if err != nil || len(versions) != secret.KeepVersions {
				t.Errorf("after AfterRun: db has versions %v, %v; want the newest %d", versions, err, secret.KeepVersions)
			}
		})
	}
}
