package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// buildGroup is a set of binaries built from one tools module in one go
// build. A group of one package names its binary itself; otherwise go build
// names each after its package.
type buildGroup struct {
	module   string   // directory under tools/sandbox
	packages []string // go build arguments, in binary order
	binaries []string // names of the files go build writes
	ldflags  string
	env      []string // added to the go command's environment
	estimate string   // cold build time on 2 cores, for progress lines
	realNode bool     // needed only by a sandbox with a real node
}

// k8sVersionLDFlags stamps the pinned version into the Kubernetes binaries so
// that --version, /version and kwokctl's version checks see v1.36.3.
var k8sVersionLDFlags = strings.Join([]string{
	"-X k8s.io/component-base/version.gitVersion=" + KubeVersion,
	"-X k8s.io/component-base/version.gitMajor=1",
	"-X k8s.io/component-base/version.gitMinor=36",
	"-X k8s.io/component-base/version.gitTreeState=clean",
	"-X k8s.io/client-go/pkg/version.gitVersion=" + KubeVersion,
	"-X k8s.io/client-go/pkg/version.gitMajor=1",
	"-X k8s.io/client-go/pkg/version.gitMinor=36",
	"-X k8s.io/client-go/pkg/version.gitTreeState=clean",
}, " ")

var buildGroups = []buildGroup{
	{
		module: "k8s",
		packages: []string{"./etcd", "k8s.io/kubernetes/cmd/kube-apiserver",
			"k8s.io/kubernetes/cmd/kube-controller-manager",
			"k8s.io/kubernetes/cmd/kube-scheduler", "k8s.io/kubernetes/cmd/kubectl"},
		binaries: []string{BinEtcd, BinKubeAPIServer, BinKubeControllerManager, BinKubeScheduler, BinKubectl},
		ldflags:  k8sVersionLDFlags,
		estimate: "about 10 minutes cold on 2 cores, under a minute with a warm Go build cache",
	},
	{
		module:   "kwok",
		packages: []string{"sigs.k8s.io/kwok/cmd/kwok", "sigs.k8s.io/kwok/cmd/kwokctl"},
		binaries: []string{BinKwok, BinKwokctl},
		estimate: "about 5 minutes cold on 2 cores, alongside",
	},
	{
		// A group of its own, so a cache built before it existed gains it
		// without rebuilding kwok and kwokctl.
		module:   "kwok",
		packages: []string{"./stages"},
		binaries: []string{BinKwokStages},
		estimate: "seconds once kwok is built",
	},
	{
		// After the control plane, from the same module: most of its
		// packages are compiled by then.
		module:   "k8s",
		packages: []string{"k8s.io/kubernetes/cmd/kubelet"},
		binaries: []string{BinKubelet},
		ldflags:  k8sVersionLDFlags,
		estimate: "under a minute after the control plane, about 4 minutes alone",
		realNode: true,
	},
	{
		// Static: it runs alone in an image with no libc.
		module:   "k8s",
		packages: []string{"./pause"},
		binaries: []string{BinPause},
		ldflags:  "-s -w",
		env:      []string{"CGO_ENABLED=0"},
		estimate: "seconds",
		realNode: true,
	},
}

// BuildOptions configures Build.
type BuildOptions struct {
	// ToolsDir is the tools/sandbox directory holding the k8s and kwok
	// modules; required (see FindToolsDir).
	ToolsDir string
	// BinDir receives the binaries; zero means DefaultBinDir().
	BinDir string
	// Force rebuilds binaries that are already present.
	Force bool
	// Progress receives a line per module built; nil discards.
	Progress Progress
}

// BuildBinaries compiles the pinned binaries with the go command found on
// PATH, both modules at once, moves them into BinDir and returns that directory.
// Only modules with a missing binary are built unless Force is set. It
// downloads modules through the Go module proxy when the module cache is cold.
func BuildBinaries(ctx context.Context, opts BuildOptions) (string, error) {
	if opts.ToolsDir == "" {
		return "", errors.New("build sandbox binaries: no tools directory given")
	}
	binDir, err := binDirOrDefault(opts.BinDir)
	if err != nil {
		return "", err
	}
	bins := Binaries{Dir: binDir}
	opts.Progress = &lockedProgress{p: opts.Progress}
	// The modules build side by side: their downloads and single-threaded
	// link steps overlap, which saves minutes on a cold 2-core machine. The
	// groups of one module build one after another, so that later ones
	// reuse the packages the first compiled instead of compiling them again
	// at the same time.
	errs := make([]error, len(buildGroups))
	var wg sync.WaitGroup
	for _, module := range buildModules() {
		wg.Go(func() {
			for i, g := range buildGroups {
				if g.module == module && (opts.Force || g.missingIn(bins)) {
					if errs[i] = buildGroupInto(ctx, g, opts, bins); errs[i] != nil {
						return
					}
				}
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return "", err
	}
	return binDir, nil
}

// buildModules lists the tools modules of buildGroups, in order.
func buildModules() []string {
	var modules []string
	for _, g := range buildGroups {
		if !slices.Contains(modules, g.module) {
			modules = append(modules, g.module)
		}
	}
	return modules
}

func binDirOrDefault(dir string) (string, error) {
	if dir != "" {
		return dir, nil
	}
	return DefaultBinDir()
}

func (g buildGroup) missingIn(b Binaries) bool {
	for _, name := range g.binaries {
		if !isExecutable(b.Path(name)) {
			return true
		}
	}
	return false
}

// buildGroupInto builds one module into a temporary sibling of the bin
// directory, then renames each binary into place so a crash never leaves a
// half-written binary behind.
func buildGroupInto(ctx context.Context, g buildGroup, opts BuildOptions, bins Binaries) error {
	if err := os.MkdirAll(bins.Dir, 0o755); err != nil {
		return fmt.Errorf("build sandbox binaries: %w", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(bins.Dir), "build-")
	if err != nil {
		return fmt.Errorf("build sandbox binaries: %w", err)
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(opts.ToolsDir, g.module)
	stepf(opts.Progress, "build %s from %s (%s)", strings.Join(g.binaries, ", "), dir, g.estimate)
	start := time.Now()
	stopTicking := tickProgress(opts.Progress, "still building "+g.module, time.Minute)
	err = runGoBuild(ctx, dir, tmp, g)
	stopTicking()
	if err != nil {
		return fmt.Errorf("build %s in %s: %w", strings.Join(g.binaries, ", "), dir, err)
	}
	for _, name := range g.binaries {
		if err := os.Rename(filepath.Join(tmp, name), bins.Path(name)); err != nil {
			return fmt.Errorf("install sandbox binary %s: %w", name, err)
		}
	}
	stepf(opts.Progress, "built %s in %s", strings.Join(g.binaries, ", "), time.Since(start).Round(time.Second))
	return nil
}

func runGoBuild(ctx context.Context, dir, out string, g buildGroup) error {
	target := out + string(filepath.Separator)
	if len(g.packages) == 1 {
		target = filepath.Join(out, g.binaries[0])
	}
	args := []string{"build", "-trimpath", "-o", target}
	if g.ldflags != "" {
		args = append(args, "-ldflags", g.ldflags)
	}
	cmd := exec.CommandContext(ctx, "go", append(args, g.packages...)...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "GOWORK=off", "GOFLAGS=-buildvcs=false"), g.env...)
	var output bytes.Buffer
	cmd.Stdout, cmd.Stderr = &output, &output
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%w\n%s", err, lastLines(output.String(), 30))
	}
	return nil
}

// tickProgress sends "<what> (<elapsed>)" every interval until stopped, so a
// long build shows it is alive.
func tickProgress(p Progress, what string, interval time.Duration) (stop func()) {
	done, exited := make(chan struct{}), make(chan struct{})
	start := time.Now()
	go func() {
		defer close(exited)
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				stepf(p, "%s (%s)", what, time.Since(start).Round(time.Second))
			}
		}
	}()
	return func() { close(done); <-exited }
}

// FindToolsDir walks up from start to the first directory holding
// tools/sandbox/k8s/go.mod and returns its tools/sandbox path.
func FindToolsDir(start string) (string, bool) {
	root, ok := findUp(start, filepath.Join("tools", "sandbox", "k8s", "go.mod"))
	if !ok {
		return "", false
	}
	return filepath.Join(root, "tools", "sandbox"), true
}

// findUp returns the first directory from start upwards that contains rel.
func findUp(start, rel string) (string, bool) {
	dir, err := filepath.Abs(start)
	if err != nil {
		return "", false
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, rel)); err == nil {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// lastLines keeps the last n lines of s, for error messages.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
