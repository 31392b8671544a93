package apply

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/pynenc/piceli/internal/atomicfile"
	"github.com/pynenc/piceli/internal/localpath"
	"github.com/pynenc/piceli/internal/statedir"
)

// ErrNoRun is returned when a release has no run to resume or stop.
var ErrNoRun = errors.New("no run of this release")

// runsDir holds one directory per run: its journal and stop request.
func runsDir(stateDir string) string { return statedir.Path(stateDir, statedir.Runs) }

// RunDir is the directory of one run.
func RunDir(stateDir, run string) string { return statedir.RunDir(stateDir, run) }

// JournalPath is the journal of one run.
func JournalPath(stateDir, run string) string {
	return statedir.RunFile(stateDir, run, statedir.RunJournal)
}

func stopPath(stateDir, run string) string { return statedir.RunFile(stateDir, run, statedir.RunStop) }

func latestPath(stateDir string) string { return statedir.Path(stateDir, statedir.LatestRun) }

// newRunID names a run by its start time and a random suffix, so run
// directories sort by age.
func newRunID(now time.Time) string {
	b := make([]byte, 3)
	rand.Read(b)
	return now.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b)
}

// createRun makes the run's directory, records why it runs (its source:
// "apply" or "rollback to N", which resume needs to rebuild its objects) and
// records it as the latest run.
func createRun(stateDir, run, source string) error {
	if err := atomicfile.MkdirPrivate(RunDir(stateDir, run)); err != nil {
		return fmt.Errorf("create run %s: %w", run, err)
	}
	if err := atomicfile.Write(sourcePath(stateDir, run), []byte(source+"\n"), 0o600); err != nil {
		return fmt.Errorf("create run %s: %w", run, err)
	}
	return atomicfile.Write(latestPath(stateDir), []byte(run+"\n"), 0o600)
}

func sourcePath(stateDir, run string) string {
	return statedir.RunFile(stateDir, run, statedir.RunSource)
}

// RunSource returns why a run ran: "apply", or "rollback to N". Runs that
// recorded nothing were applies.
func RunSource(stateDir, run string) (string, error) {
	data, err := statedir.ReadFile(sourcePath(stateDir, run))
	if errors.Is(err, os.ErrNotExist) {
		return SourceApply, nil
	}
	if err != nil {
		return "", fmt.Errorf("read run %s: %w", run, err)
	}
	return strings.TrimSpace(string(data)), nil
}

// SourceApply is the source of a run started by "release apply".
const SourceApply = "apply"

// RollbackSource is the source of a run that rolls back to revision n.
func RollbackSource(n int) string { return fmt.Sprintf("rollback to %d", n) }

// RollbackOf returns the revision a rollback run goes back to.
func RollbackOf(source string) (int, bool) {
	var n int
	_, err := fmt.Sscanf(source, "rollback to %d", &n)
	return n, err == nil && n > 0
}

// LatestRun returns the id of the release's latest run. The pointer may
// have come from shared state, so an id that is not one file name (a '/',
// "..") is an error: it never becomes a path out of the runs directory.
func LatestRun(stateDir string) (string, error) {
	data, err := statedir.ReadFile(latestPath(stateDir))
	if errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("%w in %s", ErrNoRun, stateDir)
	}
	if err != nil {
		return "", fmt.Errorf("read latest run: %w", err)
	}
	run := strings.TrimSpace(string(data))
	if err := localpath.CheckName(run); err != nil {
		return "", fmt.Errorf("read latest run %s: %w", latestPath(stateDir), err)
	}
	return run, nil
}

// RequestStop asks the run in progress to stop after its in-flight writes
// settle. It only writes a file in the run's directory: the engine that
// holds the release's lock notices it between steps and while waiting.
func RequestStop(stateDir, run, who string) error {
	if _, err := os.Stat(RunDir(stateDir, run)); err != nil {
		return fmt.Errorf("stop run %s: %w", run, err)
	}
	return atomicfile.Write(stopPath(stateDir, run), []byte(who+"\n"), 0o600)
}

func stopRequested(stateDir, run string) bool {
	_, err := os.Stat(stopPath(stateDir, run))
	return err == nil
}

func clearStop(stateDir, run string) error {
	err := os.Remove(stopPath(stateDir, run))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}
