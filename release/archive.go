package release

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
}

// Archive returns the session archive of a run of the release, as JSON
// ("schema": "piceli.session-archive/v1"): the target's identity, the
// release, revision and plan hash, every object the plan declared with
// its keyed digest and step outcome, the check results and times. It
// holds no secret value and no manifest. Every run writes its archive when
// it ends (runs/<id>/archive.json); a run from before archives is archived
// from its journal on the fly. An unknown run is a refusal (refusal.Is). No
// cluster is contacted and nothing is written.
func (r *Release) Archive(ctx context.Context, opts ArchiveOptions) ([]byte, error) {
	_, data, err := r.archive(opts)
	return data, err
}

// ArchiveExportSchema versions an ArchiveExport.
const ArchiveExportSchema = "piceli.archive-export/v1"

// ArchiveExport records an ExportArchive that succeeded: the release, the
// run and the file its session archive was written to.
type ArchiveExport struct {
	Schema  string `json:"schema"` // ArchiveExportSchema
	Release string `json:"release"`
	Run     string `json:"run"`
	File    string `json:"file"`
	Bytes   int    `json:"bytes"`
}

// ExportArchive writes the session archive Archive returns into the
// directory dir (created if missing) as RUN.archive.json, atomically and
// owner-only (0600), and says where.
func (r *Release) ExportArchive(ctx context.Context, dir string, opts ArchiveOptions) (*ArchiveExport, error) {
	if dir == "" {
		return nil, refusef("archive export: a directory to write into is required")
	}
	run, data, err := r.archive(opts)
	if err != nil {
		return nil, err
	}
	file, err := exportFile(dir, run+".archive.json")
	if err != nil {
		return nil, err
	}
	if err := atomicfile.Write(file, data, 0o600); err != nil {
		return nil, fmt.Errorf("write session archive %s: %w", file, err)
	}
	return &ArchiveExport{Schema: ArchiveExportSchema, Release: r.Name(), Run: run, File: file, Bytes: len(data)}, nil
}

// exportFile is dir/name, after making dir; name is a run id or a release
// name, both already checked to be one path element.
func exportFile(dir, name string) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("make export directory %s: %w", dir, err)
	}
	file := filepath.Join(dir, name)
	if filepath.Dir(file) != filepath.Clean(dir) {
		return "", refusef("export file name %q: not one path element", name)
	}
	return file, nil
}

func (r *Release) archive(opts ArchiveOptions) (string, []byte, error) {
	if err := r.checkOwner(); err != nil {
		return "", nil, err
	}
	run := opts.Run
	if run == "" {
		latest, err := apply.LatestRun(r.StateDir())
		if err != nil {
			return "", nil, refuse(err)
		}
		run = latest
	}
	if run == "latest" || strings.ContainsAny(run, `/\`) || strings.HasPrefix(run, ".") {
		return "", nil, refusef("run id %q: not a run of this release", run)
	}
	if _, err := os.Stat(apply.RunDir(r.StateDir(), run)); err != nil {
		return "", nil, refusef("run %s: not a run of this release in %s", run, r.StateDir())
	}
	if a, err := archive.Read(archive.Path(apply.RunDir(r.StateDir(), run))); err == nil {
		data, err := archive.Encode(a)
		return run, data, err
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", nil, err
	}
	a, err := r.buildArchive(run, 0, nil)
	if err != nil {
		return "", nil, err
	}
	data, err := archive.Encode(a)
	return run, data, err
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
