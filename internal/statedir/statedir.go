// Package statedir owns the layout of a release's state directory: where
// each record lives, and which records are shared through the cluster
// (state = "cluster") and which belong to the machine that wrote them.
// Every package that reads or writes a state directory names its files
// through this package, so the layout is said once (docs/state.md).
package statedir

import (
	"path"
	"path/filepath"

	"github.com/pynenc/piceli/internal/inputfile"
)

// MaxFile bounds any one file of a state directory that Piceli reads:
// the largest real ones (a plan, a journal or a revision of thousands of
// objects) are a few MiB.
const MaxFile = 256 << 20

// ReadFile reads a file of a state directory: a regular file, no symlink
// (Piceli writes none there), of at most MaxFile bytes; anything else is
// an error naming the path, and is never read whole. A missing file is an
// error matching fs.ErrNotExist, as with os.ReadFile.
func ReadFile(path string) ([]byte, error) {
	return inputfile.ReadNoFollow(path, MaxFile)
}

// The entries of a state directory, as slash-separated paths relative to
// it. A run's files are under Runs/<run id>/.
const (
	Plans     = "plans"           // stored plans, <hash>.json, sealed
	PlanFiles = "plan-files"      // this machine's seals of the plan files it stored, <hash>
	DigestKey = "keys/digest"     // the release's key for digests and seals
	Runs      = "runs"            // one directory per run
	LatestRun = "runs/latest"     // the id of the release's latest run
	History   = "history"         // revisions, NNNNNN.json and index.json
	Secrets   = "secrets"         // generated secret versions, by name
	Owner     = "owner.json"      // the release the directory belongs to
	Lock      = "lock"            // the file lock held while a command runs
	LockOwner = "lock.holder"     // who holds, or last held, the file lock
	Sync      = "state-sync.json" // which cluster snapshot the cache agrees with
	Deploys   = "deploys"         // piceli deploy's journals, one directory per deploy
)

// The files of one run's directory.
const (
	RunJournal = "journal" // the run's journal
	RunSource  = "source"  // why it ran: apply, or rollback to N
	RunStop    = "stop"    // a request that the run stop
)

// Entry is one row of the layout: a path pattern (path.Match syntax, one
// run id matched by *) and whether it is shared through the cluster.
type Entry struct {
	Pattern string
	Shared  bool
	Holds   string
}

// Layout is every entry of a state directory. Machine-local entries
// describe or address a process on this machine (its lock, a stop request
// for it) or the cache's own bookkeeping; everything else is the release's
// state, which another machine needs to plan, resume or roll back.
var Layout = []Entry{
	{Plans + "/*", true, "stored plans"},
	{PlanFiles + "/*", false, "the seal of each plan file this machine stored, over its bytes"},
	{DigestKey, true, "the digest and seal key"},
	{LatestRun, true, "the latest run's id"},
	{Runs + "/*/" + RunJournal, true, "each run's journal"},
	{Runs + "/*/" + RunSource, true, "why each run ran"},
	{Runs + "/*/" + RunStop, false, "a stop request, for the process running here"},
	{History + "/*", true, "revisions and their index"},
	{Secrets + "/*/*", true, "generated secret versions"},
	{Owner, true, "the owning release"},
	{Lock, false, "the file lock of a process here"},
	{LockOwner, false, "the holder of that lock"},
	{Sync, false, "the snapshot this cache last agreed with"},
	{Deploys + "/*/*", true, "each deploy's journal"},
}

// Shared reports whether rel, a slash-separated path under a state
// directory, is shared through the cluster: every file but the
// machine-local entries of Layout.
func Shared(rel string) bool {
	for _, e := range Layout {
		if ok, _ := path.Match(e.Pattern, rel); ok {
			return e.Shared
		}
	}
	return true
}

// Path is the file or directory rel (one of the constants above) of the
// state directory dir.
func Path(dir, rel string) string { return filepath.Join(dir, filepath.FromSlash(rel)) }

// RunDir is the directory of run under dir.
func RunDir(dir, run string) string { return filepath.Join(dir, Runs, run) }

// RunFile is file (RunJournal, RunSource, RunStop) of run under dir.
func RunFile(dir, run, file string) string { return filepath.Join(RunDir(dir, run), file) }

// RunFileRel is file of run as a slash-separated path under the state
// directory, as snapshots name their files.
func RunFileRel(run, file string) string { return Runs + "/" + run + "/" + file }

// Environment is the state directory of the environment env of a release
// whose state directory is base: a sibling of base, so that each
// environment has its own plans, history and lock, and no environment's
// directory lies inside another's. env is a DNS-1123 label (the spec
// checks it), so the result stays beside base.
func Environment(base, env string) string { return filepath.Clean(base) + envSuffix + env }

// envSuffix joins a base state directory and an environment's name.
const envSuffix = ".env-"
