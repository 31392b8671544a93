package retention

import (
	"fmt"

	"github.com/pynenc/piceli/internal/history"
)

// Apply removes from a release's state directory the plans, runs and secret
// versions rule does not keep, and reports what it removed and kept. It
// always keeps:
//
//   - every revision: history is never pruned;
//   - the rule.Plans newest stored plans, by when they were stored (their
//     file's modification time, see plan.List);
//   - every plan a revision names;
//   - the rule.Runs newest runs (run ids sort by age);
//   - the run the latest-run file names, which resume continues;
//   - every run resume could continue: its journal does not end finished
//     or compensated (running, stopped or failed);
//   - every run whose journal cannot be read or replayed, with a warning:
//     nothing is removed on a guess;
//   - the plan of every run it keeps (when its journal names one), so a
//     kept run can still be resumed or read;
//   - the rule.SecretVersions newest versions of each secret, and every
//     version a revision uses (PruneSecrets).
//
// Everything else under plans/, runs/ and secrets/ is removed: first what
// an interrupted earlier Apply left of a run, then runs (each renamed away
// before it is deleted, see apply.RemoveRun), then plans, then secret
// versions. Nothing else in the state directory is touched, and Apply
// with the same rule again removes nothing. Revisions are read from the
// history index (history.Summaries); when they cannot be read, nothing is
// removed. On an error the report says what was removed before it.
//
// The caller holds the release's lock: a run starting meanwhile could
// otherwise lose the plan it applies.
func Apply(stateDir string, rule Rule) (Report, error) {
	rule = rule.withDefaults()
	rep := Report{Plans: newTally(), Runs: newTally(), SecretVersions: newTally()}
	sums, err := history.Summaries(stateDir)
	if err != nil {
		return rep, fmt.Errorf("apply retention: %w", err)
	}
	runPlans, err := sweepRuns(stateDir, rule.Runs, &rep)
	if err != nil {
		return rep, fmt.Errorf("apply retention: %w", err)
	}
	if err := sweepPlans(stateDir, rule.Plans, needed(sums, runPlans), &rep.Plans); err != nil {
		return rep, fmt.Errorf("apply retention: %w", err)
	}
	if rep.SecretVersions, err = pruneSecrets(stateDir, rule.SecretVersions, sums); err != nil {
		return rep, fmt.Errorf("apply retention: %w", err)
	}
	return rep, nil
}

// needed returns the plans that must be kept whatever their age: those the
// revisions name and those of the runs kept.
func needed(sums []history.Summary, runPlans []string) map[string]bool {
	out := map[string]bool{}
	for _, s := range sums {
		out[s.Plan] = true
	}
	for _, p := range runPlans {
		out[p] = true
	}
	return out
}
