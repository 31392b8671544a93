package bench

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pynenc/piceli/internal/bench/synth"
)

// config is what one benchmark run measures.
type config struct {
	Sizes   []int
	Mixes   []synth.Mix
	Runs    int   // measurements of each figure; the table shows medians
	GoSizes []int // sizes whose cluster operations are also measured from the Go composition
	Out     string
	Repo    string
	NoSync  string // the piceli_nofsync build of this program
	Nodes   int    // fake nodes of the private sandbox
	Keep    bool   // keep the work directory
	Verbose bool   // log each measurement and its requests
	// Parallel is the requests in flight of Piceli's plans and applies;
	// 0 is the library's default, which the table is for.
	Parallel int
	// Helm is the Helm 4 CLI (built from tools/compare's pin), measured
	// with the floor beside Piceli on the peerRow releases.
	Helm      string
	PeerSizes []int
	// PeersOnly measures only the peerRow releases from YAML, without
	// render, the Go composition, the build without fsync or codegen, and
	// prints the peers' table without writing the results file.
	PeersOnly bool
	// Only, when "controller" or "stop", runs that scenario alone and
	// replaces only its section of Out.
	Only string
	// Controller is the piceli-controller binary the controller scenario
	// runs; CtlReleases and CtlObjects size it (0 Releases: no scenario).
	Controller  string
	CtlReleases int
	CtlObjects  int
	// StopObjects sizes the stop scenario's Release (0: no scenario).
	StopObjects int
}

// bench is one benchmark run in progress.
type bench struct {
	cfg          config
	data         dataset
	t            target
	c            *cluster
	res          *results
	log          io.Writer
	self, noSync string
	cacheDir     string // compiled Go compositions
	kubectlCache string // kubectl's discovery cache

	started   time.Time
	loadStart string  // the load average when the run began
	idle      float64 // attributed requests per second of the idle sandbox
	codegen   codegenFigure
	ctl       *ctlFigures  // the controller scenario's figures, once measured
	stop      *stopFigures // the stop scenario's, once measured
}

// Main runs the benchmark (or, as "worker ...", one measured operation)
// and returns the process's exit code.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "worker" {
		if err := worker(ctx, args[1:], stdout, ""); err != nil {
			fmt.Fprintln(stderr, "worker:", err)
			return 1
		}
		return 0
	}
	if len(args) > 0 && args[0] == "floor" {
		if err := floor(ctx, args[1:], stdout); err != nil {
			fmt.Fprintln(stderr, "floor:", err)
			return 1
		}
		return 0
	}
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		return 2
	}
	if err := run(ctx, cfg, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "bench: FAILED:", err)
		return 1
	}
	return 0
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("piceli-bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	sizes := fs.String("sizes", "100,1000,5000", "object counts of the synthetic releases")
	mixes := fs.String("mixes", "configmaps,mixed", "mixes: configmaps, mixed")
	goSizes := fs.String("go-sizes", "1000", "sizes whose plans and applies are measured from the Go composition too (render always is)")
	peerSizes := fs.String("peer-sizes", "1000", "sizes of the ConfigMap releases on which Helm and the floor are measured too")
	cfg := config{}
	fs.StringVar(&cfg.Helm, "helm", "", "the Helm 4 CLI, built from tools/compare (required)")
	fs.BoolVar(&cfg.PeersOnly, "peers-only", false, "measure only Piceli, the floor, kubectl and Helm on the -peer-sizes ConfigMap releases; print, do not write -out")
	fs.IntVar(&cfg.Runs, "runs", 3, "measurements per figure (medians are reported; at least 3)")
	fs.StringVar(&cfg.Out, "out", "docs/performance.md", "results file")
	fs.StringVar(&cfg.Repo, "repo", ".", "the Piceli source tree")
	fs.StringVar(&cfg.NoSync, "nofsync", "", "this program built with -tags piceli_nofsync (required)")
	fs.IntVar(&cfg.Nodes, "nodes", 6, "fake nodes of the private sandbox (110 pods each)")
	fs.BoolVar(&cfg.Keep, "keep", false, "keep the work directory")
	fs.IntVar(&cfg.Parallel, "parallel", 0, "requests in flight of Piceli's plans and applies (0: the library's default)")
	fs.BoolVar(&cfg.Verbose, "v", false, "log every measurement with its API requests by verb and resource")
	fs.StringVar(&cfg.Only, "only", "", `"controller" or "stop": run only that scenario and replace only its section of -out`)
	fs.StringVar(&cfg.Controller, "controller", "", "the piceli-controller binary the controller scenario runs (required unless -controller-releases 0)")
	fs.IntVar(&cfg.CtlReleases, "controller-releases", 200, "Releases of the controller scenario (0: leave the scenario out)")
	fs.IntVar(&cfg.CtlObjects, "controller-objects", 25, "objects of each Release of the controller scenario")
	fs.IntVar(&cfg.StopObjects, "stop-objects", 4000, "ConfigMaps of the stop scenario's Release (0: leave the scenario out)")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	var errs []error
	cfg.Sizes, errs = ints(*sizes, errs)
	cfg.GoSizes, errs = ints(*goSizes, errs)
	cfg.PeerSizes, errs = ints(*peerSizes, errs)
	for _, m := range strings.Split(*mixes, ",") {
		cfg.Mixes = append(cfg.Mixes, synth.Mix(m))
		if _, err := synth.Objects(synth.Mix(m), 0); err != nil {
			errs = append(errs, err)
		}
	}
	if cfg.Runs < 3 {
		errs = append(errs, errors.New("-runs must be at least 3: the table reports medians"))
	}
	errs = append(errs, cfg.scenarioErrors()...)
	if cfg.NoSync == "" && cfg.Only == "" {
		errs = append(errs, errors.New("-nofsync is required: without it the journal's cost is not measured"))
	}
	if cfg.Helm == "" && cfg.Only == "" {
		errs = append(errs, errors.New("-helm is required: Helm 4 is measured beside Piceli (make bench builds it)"))
	}
	err := errors.Join(errs...)
	if err != nil {
		fmt.Fprintln(stderr, err)
	}
	return cfg, err
}

// scenarioErrors checks -only and the controller scenarios' sizes.
func (c config) scenarioErrors() []error {
	var errs []error
	switch {
	case c.Only != "" && c.Only != "controller" && c.Only != "stop":
		errs = append(errs, fmt.Errorf("-only %q: the scenarios that run alone are \"controller\" and \"stop\"", c.Only))
	case c.Only == "controller" && c.CtlReleases <= 0:
		errs = append(errs, errors.New("-only controller needs -controller-releases above 0"))
	case c.Only == "stop" && c.StopObjects <= 0:
		errs = append(errs, errors.New("-only stop needs -stop-objects above 0"))
	case c.CtlReleases < 0 || c.CtlObjects <= 0:
		errs = append(errs, errors.New("-controller-releases may not be negative and -controller-objects must be positive"))
	case c.StopObjects < 0:
		errs = append(errs, errors.New("-stop-objects may not be negative"))
	case c.Controller == "" && !c.PeersOnly && c.runsController():
		errs = append(errs, errors.New("-controller is required: the piceli-controller binary (or -controller-releases 0 -stop-objects 0)"))
	}
	return errs
}

// runsController says whether a scenario of the run starts the
// controller binary.
func (c config) runsController() bool {
	switch c.Only {
	case "controller":
		return c.CtlReleases > 0
	case "stop":
		return c.StopObjects > 0
	}
	return c.CtlReleases > 0 || c.StopObjects > 0
}

func ints(s string, errs []error) ([]int, []error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n <= 0 {
			errs = append(errs, fmt.Errorf("%q is not a positive object count", f))
		}
		out = append(out, n)
	}
	return out, errs
}

// rows lists the releases measured: every mix and size from YAML, and
// from the Go composition.
func (c config) rows() []row {
	var out []row
	if c.PeersOnly {
		for _, n := range c.PeerSizes {
			out = append(out, row{Mix: synth.ConfigMaps, N: n, Format: formatYAML})
		}
		return out
	}
	for _, n := range c.Sizes {
		for _, m := range c.Mixes {
			out = append(out, row{Mix: m, N: n, Format: formatYAML}, row{Mix: m, N: n, Format: formatGo})
		}
	}
	return out
}

// onCluster reports whether r's plans and applies are measured, not only
// its render.
func (c config) onCluster(r row) bool {
	if r.Format == formatYAML {
		return true
	}
	for _, n := range c.GoSizes {
		if n == r.N {
			return true
		}
	}
	return false
}

func run(ctx context.Context, cfg config, stdout, stderr io.Writer) (err error) {
	b, done, err := newBench(ctx, cfg, stderr)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, done()) }()
	if cfg.Only != "" {
		return b.scenarioOnly(ctx, stdout)
	}
	if !cfg.PeersOnly {
		for _, r := range cfg.rows() {
			b.logf("render %s", r)
			if err := b.render(ctx, r); err != nil {
				return fmt.Errorf("render %s: %w", r, err)
			}
		}
		b.logf("codegen crd on %s", codegenSample)
		if b.codegen, err = measureCodegen(); err != nil {
			return fmt.Errorf("codegen: %w", err)
		}
	}
	for k := range cfg.Runs {
		for _, r := range cfg.rows() {
			if cfg.onCluster(r) {
				if err := b.clusterRun(ctx, r, k); err != nil {
					return err
				}
			}
		}
	}
	if cfg.CtlReleases > 0 && !cfg.PeersOnly {
		f, err := b.controllerScale(ctx)
		if err != nil {
			return fmt.Errorf("controller scenario: %w", err)
		}
		b.ctl = &f
	}
	if cfg.StopObjects > 0 && !cfg.PeersOnly {
		f, err := b.controllerStop(ctx)
		if err != nil {
			return fmt.Errorf("stop scenario: %w", err)
		}
		b.stop = &f
	}
	return b.write(ctx, stdout)
}

// scenarioOnly runs the scenario -only names and replaces its section of
// the results file, leaving the rest as the last full run wrote it.
func (b *bench) scenarioOnly(ctx context.Context, stdout io.Writer) error {
	var heading, section string
	switch b.cfg.Only {
	case "controller":
		f, err := b.controllerScale(ctx)
		if err != nil {
			return fmt.Errorf("controller scenario: %w", err)
		}
		heading, section = ctlHeading, controllerSection(f)
	case "stop":
		f, err := b.controllerStop(ctx)
		if err != nil {
			return fmt.Errorf("stop scenario: %w", err)
		}
		heading, section = stopHeading, stopSection(f)
	default:
		return fmt.Errorf("-only %q: no such scenario", b.cfg.Only)
	}
	old, err := os.ReadFile(b.cfg.Out)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	fmt.Fprint(stdout, section)
	return os.WriteFile(b.cfg.Out, []byte(spliceSection(string(old), heading, section)), 0o644)
}

// step is one tool's measurements of a release in one run.
type step struct {
	what string
	fn   func(context.Context, row, int) error
}

// clusterRun measures one run of every cluster operation of r. The tools
// take turns at going first (run k starts with the k-th, in rotation), so
// none always meets another's leftovers.
func (b *bench) clusterRun(ctx context.Context, r row, k int) error {
	steps := []step{{"kubectl", b.kubectlRun}, {"piceli", b.piceliRun}}
	if b.cfg.peerRow(r) {
		steps = append(steps, step{"floor", b.floorRun}, step{"helm", b.helmRun})
	}
	steps = rotate(steps, k)
	if !b.cfg.PeersOnly {
		steps = append(steps, step{"piceli without fsync", b.noSyncRun})
	}
	for _, s := range steps {
		b.logf("run %d of %d: %s, %s", k+1, b.cfg.Runs, r, s.what)
		if err := s.fn(ctx, r, k+1); err != nil {
			return fmt.Errorf("%s, run %d, %s: %w", r, k+1, s.what, err)
		}
	}
	return nil
}

// rotate returns s turned left by k places.
func rotate[T any](s []T, k int) []T {
	k %= len(s)
	return append(slices.Clone(s[k:]), s[:k]...)
}

// newBench prepares the work directory, the sandbox and the connection;
// done stops the sandbox and removes what the run created.
func newBench(ctx context.Context, cfg config, log io.Writer) (*bench, func() error, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, nil, err
	}
	repo, err := filepath.Abs(cfg.Repo)
	if err != nil {
		return nil, nil, err
	}
	if _, err := os.Stat(goComposition(repo)); err != nil {
		return nil, nil, fmt.Errorf("-repo %s is not the Piceli source tree: %w", cfg.Repo, err)
	}
	noSync, err := filepath.Abs(cfg.NoSync)
	if err != nil {
		return nil, nil, err
	}
	if cfg.Helm, err = filepath.Abs(cfg.Helm); err != nil {
		return nil, nil, err
	}
	if _, err := os.Stat(cfg.Helm); err != nil {
		return nil, nil, fmt.Errorf("-helm: %w (make bench builds it from tools/compare)", err)
	}
	dir, err := os.MkdirTemp("", "piceli-bench-")
	if err != nil {
		return nil, nil, err
	}
	b := &bench{cfg: cfg, data: dataset{dir: dir, repo: repo}, res: newResults(cfg), log: log, self: self, noSync: noSync,
		cacheDir: filepath.Join(dir, "cache"), kubectlCache: filepath.Join(dir, "kubectl-cache"),
		started: time.Now(), loadStart: loadAverage()}
	if cfg.Verbose {
		b.res.verbose = b.logSample
	}
	b.logf("work directory %s; starting a private sandbox with %d nodes", dir, cfg.Nodes)
	sb, t, err := startSandbox(ctx, filepath.Join(dir, "sandbox"), cfg.Nodes, log)
	done := func() error {
		var errs []error
		if sb != nil {
			stop, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Minute)
			defer cancel()
			_, err := sb.Down(stop)
			errs = append(errs, err)
		}
		if !cfg.Keep {
			errs = append(errs, os.RemoveAll(dir))
		}
		return errors.Join(errs...)
	}
	if err != nil {
		return nil, nil, errors.Join(err, done())
	}
	b.t = t
	if b.c, err = connect(ctx, t); err != nil {
		return nil, nil, errors.Join(err, done())
	}
	if _, err := os.Stat(t.Kubectl); err != nil {
		return nil, nil, errors.Join(fmt.Errorf("the sandbox's kubectl: %w", err), done())
	}
	if b.idle, err = b.idleRate(ctx); err != nil {
		return nil, nil, errors.Join(err, done())
	}
	return b, done, nil
}

func (b *bench) logf(format string, args ...any) {
	fmt.Fprintf(b.log, "bench: "+format+"\n", args...)
}

// logSample logs one measurement and its API requests.
func (b *bench) logSample(r row, op, tool string, s sample) {
	keys := slices.Sorted(maps.Keys(s.ByKind))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s ×%.0f", k, s.ByKind[k])
	}
	b.logf("  %s, %s, %s: %.2f s (%.2f s CPU), %.0f MB, %.0f requests: %s; report %+v", r, op, tool, s.Wall.Seconds(), s.CPU.Seconds(), float64(s.RSS)/1e6, s.Requests, strings.Join(parts, ", "), s.Result)
}
