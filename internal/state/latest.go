package state

import (
	"bytes"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/statedir"
)

// latestRun is the file naming a release's latest run.
const latestRun = statedir.LatestRun

// runIDTime is the layout a run id begins with: its start, to the second.
const runIDTime = "20060102-150405"

// runStart is a run as the latest-run rule compares it: its id and when it
// started.
type runStart struct {
	ID      string
	Started time.Time
}

// laterRun reports whether run a started after run b, by a rule every
// machine applies alike to the same two runs: the later start time wins
// (a journal's first record, to the nanosecond); on equal times the
// greater id wins.
func laterRun(a, b runStart) bool {
	if !a.Started.Equal(b.Started) {
		return a.Started.After(b.Started)
	}
	return a.ID > b.ID
}

// keepLatest reports whether the cache's latest-run pointer (cur) names a
// later run than the snapshot's (snap), in which case the cache keeps it:
// a run started here and killed before its first push is still the one to
// resume, unless another machine started a run after it. Each run's start
// is read from its journal, in the cache or in the snapshot's files.
func keepLatest(dir string, files []File, cur, snap []byte) bool {
	here, there := runID(cur), runID(snap)
	if here == "" || here == there {
		return here != "" // the same run: nothing to decide
	}
	if there == "" {
		return true
	}
	return laterRun(started(dir, files, here), started(dir, files, there))
}

// runID is the run a latest-run pointer names, or "" when it names none
// that could be a run directory.
func runID(pointer []byte) string {
	id := string(bytes.TrimSpace(pointer))
	if id == "" || id == "latest" || strings.ContainsAny(id, `/\`) || !fs.ValidPath(id) || strings.HasPrefix(id, ".") {
		return ""
	}
	return id
}

// started is when run id began: its journal's first record, from the
// cache or the snapshot, or else the time its id begins with.
func started(dir string, files []File, id string) runStart {
	name := statedir.RunFileRel(id, statedir.RunJournal)
	if data, err := statedir.ReadFile(filepath.Join(dir, filepath.FromSlash(name))); err == nil {
		if t, ok := journal.StartedAt(data); ok {
			return runStart{ID: id, Started: t}
		}
	}
	for _, f := range files {
		if f.Path == name {
			if t, ok := journal.StartedAt(f.Data); ok {
				return runStart{ID: id, Started: t}
			}
		}
	}
	t, _ := time.Parse(runIDTime, id[:min(len(id), len(runIDTime))])
	return runStart{ID: id, Started: t}
}
