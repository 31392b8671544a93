package bench

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/pynenc/piceli/internal/gctune"
	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/plan"
	"github.com/pynenc/piceli/progress"
	"github.com/pynenc/piceli/release"
)

// workerResult is what one worker process reports on its stdout: what the
// operation did, so the benchmark can check it did what was measured.
type workerResult struct {
	Op      string         `json:"op"`
	Objects int            `json:"objects,omitempty"` // render: manifests rendered
	Hash    string         `json:"hash,omitempty"`    // plan
	Changed bool           `json:"changed,omitempty"` // plan: would applying change anything
	Counts  map[string]int `json:"counts,omitempty"`  // plan: steps per action
	Status  string         `json:"status,omitempty"`  // apply: how the run ended
	Written int            `json:"written,omitempty"` // apply: steps written
	// Check is the time an apply spent before its run started (loading,
	// rendering, the approval check, locks), Run the time of the run, and
	// Readiness the part of Run spent waiting for readiness after a wave's
	// writes. Seconds.
	Check     float64 `json:"check,omitempty"`
	Run       float64 `json:"run,omitempty"`
	Readiness float64 `json:"readiness,omitempty"`
	// Durable reports whether the journal fsyncs in this binary.
	Durable bool `json:"durable"`
	// Commits and Journal are the journal's commits during the operation
	// and the seconds they took (journal.Stats).
	Commits int64   `json:"commits,omitempty"`
	Journal float64 `json:"journal,omitempty"`
	// RSS is the largest resident set, in bytes, of this process or of one
	// it ran (peakRSS).
	RSS int64 `json:"rss"`
}

// worker runs one operation through the release library, as the CLI does,
// and prints a workerResult: "[-parallel N] render SPEC", "... plan SPEC",
// "... apply SPEC HASH".
func worker(ctx context.Context, args []string, stdout io.Writer, cacheDir string) error {
	gctune.ForCommand() // as cmd/piceli's main does
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	parallel := fs.Int("parallel", 0, "requests in flight (0: the library's default)")
	profile := fs.String("cpuprofile", "", "write a CPU profile of the operation to this file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *profile != "" {
		stop, err := startProfile(*profile)
		if err != nil {
			return err
		}
		defer stop()
	}
	args = fs.Args()
	if len(args) < 2 {
		return errors.New("usage: worker [-parallel N] render|plan|apply SPEC [HASH]")
	}
	op, path := args[0], args[1]
	res := workerResult{Op: op, Durable: journal.Durable()}
	var clock eventClock
	r, err := release.Open(path, release.Options{CacheDir: cacheDir})
	if err != nil {
		return err
	}
	switch {
	case op == "render":
		objs, err := r.Render(ctx, release.RenderOptions{})
		if err != nil {
			return err
		}
		res.Objects = len(objs)
	case op == "plan":
		p, err := r.Plan(ctx, release.PlanOptions{Parallel: *parallel})
		if err != nil {
			return err
		}
		if b := p.Blocked(); len(b) > 0 {
			return fmt.Errorf("the plan is blocked: %v", b)
		}
		res.Hash, res.Changed, res.Counts = p.Hash, p.Changed(), counts(p)
	case op == "apply" && len(args) == 3:
		start := time.Now()
		out, err := r.Apply(ctx, args[2], release.RunOptions{Parallel: *parallel, Events: clock.record})
		if err != nil {
			return err
		}
		res.Status = string(out.Phase)
		clock.fill(&res, start, time.Now())
		n, spent := journal.Stats()
		res.Commits, res.Journal = n, spent.Seconds()
	default:
		return fmt.Errorf("unknown worker operation %q", op)
	}
	if res.RSS, err = peakRSS(); err != nil {
		return err
	}
	return json.NewEncoder(stdout).Encode(res)
}

// peakRSS is the high-water mark of this process's resident set (VmHWM)
// or, when larger, of a child it waited for (a Go composition). The parent
// cannot measure it: Linux starts a child's ru_maxrss at the resident set
// of the process that spawned it, so every worker would weigh at least
// what the benchmark itself does.
func peakRSS() (int64, error) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	var own int64
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			fmt.Sscanf(strings.TrimSpace(v), "%d", &own)
		}
	}
	if own == 0 {
		return 0, errors.New("no VmHWM in /proc/self/status")
	}
	var children syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children); err != nil {
		return 0, err
	}
	return max(own, children.Maxrss) * 1024, nil // kilobytes
}

func counts(p *plan.Plan) map[string]int {
	out := map[string]int{}
	for a, n := range p.Counts() {
		out[string(a)] = n
	}
	return out
}

// eventClock timestamps a run's events to split its time into the approval
// check, writes and readiness waits.
type eventClock struct {
	mu         sync.Mutex
	runStarted time.Time
	written    int
	waveStart  time.Time // the current wave's start, then its last write
	readiness  time.Duration
}

func (c *eventClock) record(ev progress.Event) {
	now := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	switch ev.Kind {
	case progress.RunStarted:
		c.runStarted = now
	case progress.WaveStarted:
		c.waveStart = now
	case progress.StepFinished:
		c.written++
		c.waveStart = now
	case progress.WaveReady:
		c.readiness += now.Sub(c.waveStart)
	}
}

func (c *eventClock) fill(res *workerResult, start, end time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	res.Written = c.written
	if !c.runStarted.IsZero() {
		res.Check = c.runStarted.Sub(start).Seconds()
		res.Run = end.Sub(c.runStarted).Seconds()
	}
	res.Readiness = c.readiness.Seconds()
}

// startProfile starts a CPU profile into path; the returned function ends
// it.
func startProfile(path string) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}
