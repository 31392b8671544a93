package acceptance

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/cli"
	"github.com/pynenc/piceli/internal/journal"
)

// concurrencyScenarios run two applies of one release at once.
func concurrencyScenarios() []scenario {
	return []scenario{
		{
			name:     "a second apply from the same state directory is kept out by the file lock",
			fault:    "apply B while apply A holds the release (paused 3s after its first intents)",
			expected: "B exits 2 naming A's pid and the state directory's lock, writes nothing; A finishes",
			fast:     true,
			run:      func(c *sc) { secondApply(c, false) },
		},
		{
			name:     "a second apply from another state directory is kept out by the Lease",
			fault:    "apply B from a copy of the release's files while apply A holds it",
			expected: "B exits 2 naming A's pid and the namespace's Lease, its state directory unchanged; A finishes",
			fast:     true,
			run:      func(c *sc) { secondApply(c, true) },
		},
		{
			name:     "two applies started at the same instant from one state directory: one runs",
			fault:    "two subprocesses apply the same plan at once, same state directory",
			expected: "one exits 0, the other 2 (locked, or stale once the first is done); each object written once",
			run:      func(c *sc) { racingApplies(c, false) },
		},
		{
			name:     "two applies started at the same instant from two state directories: one runs",
			fault:    "two subprocesses apply the same plan at once, each from its own copy of the release",
			expected: "one exits 0, the other 2 (Lease held, or stale once the first is done); each object written once",
			run:      func(c *sc) { racingApplies(c, true) },
		},
	}
}

// copyTree copies the release's directory, stored plans and key included,
// as a second operator with the same files would have it, and returns the
// spec in the copy.
func (e *env) copyTree() string {
	e.t.Helper()
	return filepath.Join(e.copyDir(), "release.toml")
}

// secondApply holds a run (a pausing failpoint) and applies the same plan
// again, from the same state directory or from a copy.
func secondApply(c *sc, otherDir bool) {
	e := c.env(envOptions{})
	p := e.plan()
	spec, lock := e.spec, "(file "+e.stateDir
	if otherDir {
		spec, lock = e.copyTree(), fmt.Sprintf("(lease %s/piceli-release-%s)", e.ns, e.name)
	}
	otherState := dirDigests(e.t, filepath.Join(filepath.Dir(spec), ".piceli-release"))
	e.markWrites()
	a := e.start(failpoint(apply.FailAfterIntent+":1:3s"), "release", "apply", "--spec", e.spec, "--approve", p.Hash)
	e.waitJournal("A's first intents", func(st journal.State) bool { return len(st.Steps) > 0 })
	before := len(e.proxy.Requests())
	res := e.piceli("release", "apply", "--spec", spec, "--approve", p.Hash)
	if res.code != cli.ExitRefused {
		e.t.Errorf("apply B: %s\nwant exit 2", res)
	}
	wantIn(e.t, "apply B's refusal", res.stderr, "release is locked by", "pid "+strconv.Itoa(a.cmd.Process.Pid), lock)
	for _, r := range e.proxy.Requests()[before:] {
		if isWrite(r) && !strings.Contains(r.Path, "/leases") {
			e.t.Errorf("apply B wrote %s %s", r.Method, r.Path)
		}
	}
	if otherDir {
		for _, d := range diffMaps(otherState, dirDigests(e.t, filepath.Join(filepath.Dir(spec), ".piceli-release"))) {
			e.t.Errorf("apply B changed its state directory: %s", d)
		}
	}
	if got := e.wait(a, time.Minute); got != "exit 0" {
		e.t.Fatalf("apply A: %s, want exit 0\n%s", got, a.out.String())
	}
}

// racingApplies starts two applies of one plan at the same instant.
func racingApplies(c *sc, otherDir bool) {
	e := c.env(envOptions{})
	p := e.plan()
	specs := []string{e.spec, e.spec}
	if otherDir {
		specs[1] = e.copyTree()
	}
	e.markWrites()
	var wg sync.WaitGroup
	procs := make([]*proc, 2)
	gate := make(chan struct{})
	for i, spec := range specs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-gate
			procs[i] = e.start(nil, "release", "apply", "--spec", spec, "--approve", p.Hash)
		}()
	}
	close(gate)
	wg.Wait()
	winner, how := -1, ""
	for i, pr := range procs {
		switch end := e.wait(pr, 2*time.Minute); {
		case end == "exit 0" && winner < 0:
			winner = i
		case end == "exit 2" && strings.Contains(pr.out.String(), "locked by"):
			how = "was locked out"
		case end == "exit 2" && strings.Contains(pr.out.String(), "stale"):
			how = "was refused as stale"
		default:
			e.t.Errorf("racing apply %d ended %s; want one exit 0 and the other exit 2, locked out or stale:\n%s", i, end, pr.out.String())
		}
	}
	if winner < 0 {
		e.t.Fatalf("neither racing apply finished")
	}
	e.setFault("%s (this time the other %s)", e.row.fault, how)
	// The after-checks read the winner's state directory.
	e.spec = specs[winner]
	e.stateDir = filepath.Join(filepath.Dir(e.spec), ".piceli-release")
}
