package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// An own component is a process the sandbox starts itself, beside the ones
// kwokctl starts: add-ons such as a storage provisioner, a load-balancer
// address keeper or a real node's daemons. Each is recorded in OwnDir as
// NAME.pid, logs to NAME.log there, and is treated like kwokctl's
// components everywhere: Status lists it, Up's health check requires it to
// run, and Down stops it (before the control plane) and proves it gone.
type ownComponent struct {
	Name string   // component name, unique in the sandbox: [a-z0-9-]+
	Path string   // executable
	Args []string // arguments; one must name a path under the cluster directory
	Env  []string // extra environment, added to the sandbox process's own
}

// ownStarters start the sandbox's own components after the control plane is
// up, in order; each records what it starts with startOwn.
func (s *Sandbox) ownStarters() []func(context.Context) error {
	starters := []func(context.Context) error{s.startAgent}
	if s.opts.RealNode {
		starters = append(starters, s.startRealNode)
	}
	return starters
}

// startOwnComponents runs every starter in order.
func (s *Sandbox) startOwnComponents(ctx context.Context) error {
	for _, start := range s.ownStarters() {
		if err := start(ctx); err != nil {
			return err
		}
	}
	return nil
}

// OwnDir holds the pid and log files of the sandbox's own components. It
// lies inside the cluster directory, so Down's scan for leftover processes
// (whose command lines name that directory) covers them too.
func (l Layout) OwnDir() string { return filepath.Join(l.ClusterDir(), ownDirName) }

const ownDirName = "piceli"

// startOwn starts c in a session of its own, so it outlives the caller, and
// records its pid. Its output goes to OwnDir/NAME.log.
func (s *Sandbox) startOwn(c ownComponent) (int, error) {
	if err := c.check(s.layout.ClusterDir()); err != nil {
		return 0, err
	}
	dir := s.layout.OwnDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, fmt.Errorf("start %s: %w", c.Name, err)
	}
	logFile, err := os.OpenFile(filepath.Join(dir, c.Name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return 0, fmt.Errorf("start %s: %w", c.Name, err)
	}
	defer logFile.Close()
	cmd := exec.Command(c.Path, c.Args...)
	cmd.Env = append(os.Environ(), c.Env...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("start %s: %w", c.Name, err)
	}
	pid := cmd.Process.Pid
	go func() { _ = cmd.Wait() }() // reap it if it ends while this process lives
	if err := writeFileAtomic(filepath.Join(dir, c.Name+".pid"), []byte(strconv.Itoa(pid)+"\n"), 0o644); err != nil {
		_ = cmd.Process.Kill()
		return 0, fmt.Errorf("record %s: %w", c.Name, err)
	}
	stepf(s.opts.Progress, "started %s (pid %d)", c.Name, pid)
	return pid, nil
}

// check refuses a component the sandbox could not later find and stop: its
// name must be a plain word and its command line must name the cluster
// directory (that is how Down tells the sandbox's processes from others).
func (c ownComponent) check(clusterDir string) error {
	if c.Name == "" || strings.ContainsAny(c.Name, "/. ") {
		return fmt.Errorf("own component name %q: want a plain name", c.Name)
	}
	prefix := clusterDir + string(filepath.Separator)
	for _, a := range c.Args {
		if strings.Contains(a, prefix) {
			return nil
		}
	}
	return fmt.Errorf("own component %s: no argument names a path under %s, so Down could not find it", c.Name, clusterDir)
}

// readOwn lists the own components recorded in OwnDir.
func readOwn(l Layout) ([]process, error) {
	procs, err := readPIDDir(l.OwnDir(), l.ClusterDir())
	if err != nil {
		return nil, fmt.Errorf("read own components: %w", err)
	}
	return procs, nil
}

// stopOwn asks each own component to exit (SIGTERM), waits up to stopGrace,
// kills what is left and removes their pid files. Logs stay until the
// cluster directory is removed.
func (s *Sandbox) stopOwn(ctx context.Context) error {
	procs, err := readOwn(s.layout)
	if err != nil {
		return err
	}
	var live []process
	for _, p := range procs {
		if p.running() {
			_ = syscall.Kill(p.PID, syscall.SIGTERM)
			live = append(live, p)
		}
	}
	if err := waitExited(ctx, live, stopGrace); err != nil {
		return err
	}
	for _, p := range procs {
		err := os.Remove(filepath.Join(s.layout.OwnDir(), p.Component+".pid"))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// waitExited polls until none of procs runs, sending SIGKILL to those still
// running after grace. It fails only if one survives SIGKILL.
func waitExited(ctx context.Context, procs []process, grace time.Duration) error {
	deadline := time.Now().Add(grace)
	killed := false
	for {
		var left []process
		for _, p := range procs {
			if p.running() {
				left = append(left, p)
			}
		}
		if len(left) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			if killed {
				return fmt.Errorf("%s (pid %d) still running after SIGKILL", left[0].Component, left[0].PID)
			}
			for _, p := range left {
				_ = syscall.Kill(p.PID, syscall.SIGKILL)
			}
			killed, deadline = true, time.Now().Add(5*time.Second)
		}
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-time.After(pollInterval):
		}
	}
}
