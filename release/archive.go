package release

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/archive"
	"github.com/pynenc/piceli/internal/atomicfile"
	"github.com/pynenc/piceli/internal/history"
	"github.com/pynenc/piceli/internal/journal"
	planner "github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/plan"
)

// ArchiveOptions tune Archive. The zero value is valid.
type ArchiveOptions struct {
	// Run names the run to export; empty means the latest run.
	Run string
	// Out, when set, is a file the archive is also written to,
	// atomically and owner-only (0600).
	Out string
}

// Archive returns the session archive of a run of the release, as JSON
// ("schema": "piceli.session-archive/v1"): the target's identity, the
// release, revision and plan hash, every object the plan declared with
// its keyed digest and step outcome, the check results and times. It
// holds no secret value and no manifest. Every run writes its archive when
// it ends (runs/<id>/archive.json); a run from before archives is archived
// from its journal on the fly. An unknown run is a refusal (refusal.Is). No
// cluster is contacted and nothing but opts.Out is written.
func (r *Release) Archive(ctx context.Context, opts ArchiveOptions) ([]byte, error) {
	data, err := r.archive(opts)
	if err != nil || opts.Out == "" {
		return data, err
	}
	if err := atomicfile.Write(opts.Out, data, 0o600); err != nil {
		return nil, fmt.Errorf("write session archive %s: %w", opts.Out, err)
	}
	return data, nil
}

func (r *Release) archive(opts ArchiveOptions) ([]byte, error) {
	if err := r.checkOwner(); err != nil {
		return nil, err
	}
	run := opts.Run
	if run == "" {
		latest, err := apply.LatestRun(r.StateDir())
		if err != nil {
			return nil, refuse(err)
		}
		run = latest
	}
	if run == "latest" || strings.ContainsAny(run, `/\`) || strings.HasPrefix(run, ".") {
		return nil, refusef("run id %q: not a run of this release", run)
	}
	if _, err := os.Stat(apply.RunDir(r.StateDir(), run)); err != nil {
		return nil, refusef("run %s: not a run of this release in %s", run, r.StateDir())
	}
	if a, err := archive.Read(archive.Path(apply.RunDir(r.StateDir(), run))); err == nil {
		return archive.Encode(a)
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	a, err := r.buildArchive(run, 0, nil)
	if err != nil {
		return nil, err
	}
	return archive.Encode(a)
}

// writeArchive records the archive of a run that started, atomically: it
// is called whenever a run ends, however it ended, with the plan the run
// ran (loaded and checked before it started).
func (r *Release) writeArchive(res *Result, ran *plan.Plan) error {
	a, err := r.buildArchive(res.Run, res.Revision, ran)
	if err != nil {
		return err
	}
	return archive.Write(archive.Path(apply.RunDir(r.StateDir(), res.Run)), a)
}

// buildArchive reads run's journal and builds its archive, with its plan:
// ran when that is the plan the journal names, else the stored one (a
// second load and seal check of a plan costs as much as the first).
func (r *Release) buildArchive(run string, revision int, ran *plan.Plan) (*archive.Archive, error) {
	recs, _, err := journal.Read(apply.JournalPath(r.StateDir(), run))
	if err != nil {
		return nil, fmt.Errorf("archive run %s: %w", run, err)
	}
	st, err := journal.Replay(recs)
	if err != nil {
		return nil, fmt.Errorf("archive run %s: %w", run, err)
	}
	p := ran
	if p == nil || p.Hash != st.Plan {
		if p, _, err = planner.Load(r.StateDir(), st.Plan); err != nil {
			return nil, fmt.Errorf("archive run %s: %w", run, err)
		}
	}
	source, err := apply.RunSource(r.StateDir(), run)
	if err != nil {
		return nil, err
	}
	if revision == 0 {
		revision = r.revisionOf(run)
	}
	return archive.Build(run, source, p, recs, revision)
}

// revisionOf returns the revision run became, or 0.
func (r *Release) revisionOf(run string) int {
	sums, err := history.Summaries(r.StateDir())
	if err != nil {
		return 0
	}
	for _, s := range sums {
		if s.Run == run {
			return s.Number
		}
	}
	return 0
}
