package apply

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pynenc/piceli/internal/atomicfile"
	"github.com/pynenc/piceli/internal/statedir"
)

// tombstonePrefix starts the name a run's directory is renamed to while it
// is removed. Runs never lists such a name, so a removal a crash
// interrupted never shows as a damaged run.
const tombstonePrefix = ".removed-"

// Runs returns the ids of the release's runs, oldest first: run ids sort
// by age. It lists run directories only: not the latest-run file, not runs
// being removed. A release without runs has none. It reads no journal.
func Runs(stateDir string) ([]string, error) {
	runs, err := statedir.List(runsDir(stateDir), statedir.Dirs, nil)
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	return runs, nil
}

// RemoveRun deletes a run's directory, journal included, so that a crash
// at any point leaves either the whole run or none of it where Runs and
// resume look: the directory is renamed to a tombstone and the rename made
// durable before anything in it is deleted. A run that is not there is no
// error. It refuses the run the latest
// run file names, which resume continues. Whether any other run may go
// (is it finished? does anything still need it?) is the caller's decision,
// and the caller holds the release's lock.
func RemoveRun(stateDir, run string) error {
	if err := checkRunID(run); err != nil {
		return err
	}
	if err := refuseLatest(stateDir, run); err != nil {
		return err
	}
	tomb := filepath.Join(runsDir(stateDir), tombstonePrefix+run)
	if err := os.RemoveAll(tomb); err != nil { // left by an earlier crash
		return fmt.Errorf("remove run %s: %w", run, err)
	}
	err := os.Rename(RunDir(stateDir, run), tomb)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("remove run %s: %w", run, err)
	}
	if err := atomicfile.SyncDir(runsDir(stateDir)); err != nil {
		return fmt.Errorf("remove run %s: %w", run, err)
	}
	return removeTombstone(stateDir, tomb)
}

// refuseLatest refuses to remove the latest run, or any run when the
// latest cannot be read.
func refuseLatest(stateDir, run string) error {
	latest, err := LatestRun(stateDir)
	switch {
	case err != nil && !errors.Is(err, ErrNoRun):
		return fmt.Errorf("remove run %s: %w", run, err)
	case err == nil && latest == run:
		return fmt.Errorf("remove run %s: it is the latest run, which resume continues", run)
	}
	return nil
}

// FinishRemovals deletes what run removals a crash interrupted left behind
// and returns the ids of those runs, sorted. It touches no run Runs lists.
func FinishRemovals(stateDir string) ([]string, error) {
	tombs, err := filepath.Glob(filepath.Join(runsDir(stateDir), tombstonePrefix+"*"))
	if err != nil {
		return nil, fmt.Errorf("finish run removals: %w", err)
	}
	var runs []string
	for _, tomb := range tombs {
		if err := removeTombstone(stateDir, tomb); err != nil {
			return runs, err
		}
		runs = append(runs, strings.TrimPrefix(filepath.Base(tomb), tombstonePrefix))
	}
	return runs, nil
}

// removeTombstone deletes a renamed run directory and makes that durable.
func removeTombstone(stateDir, tomb string) error {
	run := strings.TrimPrefix(filepath.Base(tomb), tombstonePrefix)
	if err := os.RemoveAll(tomb); err != nil {
		return fmt.Errorf("remove run %s: %w", run, err)
	}
	if err := atomicfile.SyncDir(runsDir(stateDir)); err != nil {
		return fmt.Errorf("remove run %s: %w", run, err)
	}
	return nil
}

// checkRunID refuses an id that is not one directory inside runs/.
func checkRunID(run string) error {
	if run == "" || run == "latest" || strings.HasPrefix(run, ".") || strings.ContainsAny(run, `/\`) {
		return fmt.Errorf("run id %q: not a run directory name", run)
	}
	return nil
}
