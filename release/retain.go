package release

import (
	"context"
	"errors"
	"io/fs"
	"os"

	"github.com/pynenc/piceli/internal/lock"
	"github.com/pynenc/piceli/internal/retention"
)

// GCReport says what a retention pass removed and kept: plans by hash, runs
// by id, secret versions as name/number, and warnings about what it kept
// because it could not read it.
type GCReport struct {
	Plans          GCTally `json:"plans"`
	Runs           GCTally `json:"runs"`
	SecretVersions GCTally `json:"secretVersions"`
	// Warnings name what was kept only because it could not be read: a
	// run whose journal cannot be replayed is never removed on a guess.
	Warnings []string `json:"warnings,omitempty"`
}

// GCTally is what a retention pass did to one kind of state: the ids it
// kept and removed, and how many of each.
type GCTally struct {
	Kept         []string `json:"kept"`
	Removed      []string `json:"removed"`
	KeptCount    int      `json:"keptCount"`
	RemovedCount int      `json:"removedCount"`
}

func gcReportOf(r retention.Report) *GCReport {
	return &GCReport{Plans: GCTally(r.Plans), Runs: GCTally(r.Runs), SecretVersions: GCTally(r.SecretVersions), Warnings: r.Warnings}
}

// GCOptions tune GC. The zero value applies the default rule.
type GCOptions struct {
	// Plans is how many of the newest stored plans to keep; 0 means 50.
	Plans int
	// Runs is how many of the newest runs to keep; 0 means 20.
	Runs int
	// SecretVersions is how many of each secret's newest versions to keep;
	// 0 means 10.
	SecretVersions int
}

// GC applies the state directory's retention rule now, under the release's
// file lock (a run in progress refuses it with a *LockHeldError). Beyond
// the newest plans, runs and secret versions it always keeps every
// revision, every plan a revision names, every run Resume could continue
// (and its plan), the latest run, every run it cannot read, and every
// secret version a revision uses. Every finished run applies the default
// rule by itself. No cluster is contacted.
func (r *Release) GC(ctx context.Context, opts GCOptions) (*GCReport, error) {
	if _, err := os.Stat(r.StateDir()); errors.Is(err, fs.ErrNotExist) {
		return &GCReport{}, nil // nothing stored yet, and nothing to create
	}
	if err := r.checkOwner(); err != nil {
		return nil, err
	}
	f, err := lock.File(r.StateDir(), lock.CurrentHolder(""))
	if err != nil {
		return nil, refuse(classify(err))
	}
	defer f.Unlock()
	rep, err := retention.Apply(r.StateDir(), retention.Rule{Plans: opts.Plans, Runs: opts.Runs, SecretVersions: opts.SecretVersions})
	return gcReportOf(rep), err
}

// retain applies the default retention rule after a finished run, under the
// run's locks (retention.AfterRun: it replays the runs' journals only when
// a run or plan could go).
func (r *Release) retain() error {
	return retention.AfterRun(r.StateDir())
}
