package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"time"
)

// stopGrace is how long Down waits for components to exit after kwokctl
// asked them to, before killing what is left.
const stopGrace = 20 * time.Second

// Down stops the sandbox's processes through kwokctl, verifies that none of
// them (nor any other process running from the sandbox's directory) is left,
// killing stragglers, and removes the kubeconfig file. It reports whether
// there was anything to stop. Other sandboxes are untouched.
func (s *Sandbox) Down(ctx context.Context) (bool, error) {
	if _, err := os.Stat(s.layout.Workdir()); errors.Is(err, fs.ErrNotExist) {
		return false, nil // never started here; create nothing
	}
	unlock, err := s.lock(ctx)
	if err != nil {
		return false, fmt.Errorf("stop sandbox %q: %w", s.layout.Name, err)
	}
	defer unlock()
	stopped, err := s.stop(ctx)
	if err != nil {
		return stopped, fmt.Errorf("stop sandbox %q: %w", s.layout.Name, err)
	}
	if err := os.Remove(s.layout.Kubeconfig()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return stopped, fmt.Errorf("stop sandbox %q: remove kubeconfig: %w", s.layout.Name, err)
	}
	return stopped, nil
}

// stop deletes the kwokctl cluster and waits until its processes are gone.
func (s *Sandbox) stop(ctx context.Context) (bool, error) {
	procs, err := readProcesses(s.layout.ClusterDir())
	if err != nil {
		return false, err
	}
	if _, err := os.Stat(s.layout.ClusterDir()); errors.Is(err, fs.ErrNotExist) && len(procs) == 0 {
		return false, nil
	}
	stepf(s.opts.Progress, "stop sandbox %q", s.layout.Name)
	if !isExecutable(s.bins.Path(BinKwokctl)) {
		return true, fmt.Errorf("kwokctl missing from %s: %s", s.bins.Dir, BuildHint(s.bins.Dir))
	}
	// The real node before all else, and nothing removed while it fails:
	// its mounts may still be under the cluster directory.
	if err := s.stopRealNode(ctx); err != nil {
		return true, fmt.Errorf("stop the real node: %w", err)
	}
	// Own components first: they talk to the control plane, not it to them.
	ownErr := s.stopOwn(ctx)
	// kwokctl removes the context from the kubeconfig it is given and fails
	// on an empty path: give it its own file, which it deletes anyway.
	delErr := errors.Join(ownErr, s.kwokctl(ctx, "delete", "cluster", "--name", s.layout.Name, "--kubeconfig", s.layout.kwokKubeconfig()))
	left, err := s.waitGone(ctx, procs)
	if err != nil {
		return true, errors.Join(delErr, err)
	}
	if len(left) > 0 {
		return true, errors.Join(delErr, fmt.Errorf("processes still running after SIGKILL: %v", left))
	}
	if delErr != nil {
		stepf(s.opts.Progress, "kwokctl could not delete sandbox %q; its processes are gone, removing its state: %v", s.layout.Name, delErr)
	}
	if err := s.removeRuntimeDir(); err != nil {
		return true, fmt.Errorf("remove sandbox state: %w", err)
	}
	if err := os.RemoveAll(s.layout.ClusterDir()); err != nil {
		return true, fmt.Errorf("remove sandbox state: %w", err)
	}
	return true, nil
}

// waitGone polls until no process of the sandbox is alive, then kills
// stragglers after stopGrace. It returns the pids still alive at the end.
func (s *Sandbox) waitGone(ctx context.Context, recorded []process) ([]int, error) {
	deadline := time.Now().Add(stopGrace)
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	for {
		left, err := s.livePIDs(recorded)
		if err != nil || len(left) == 0 {
			return nil, err
		}
		if time.Now().After(deadline) {
			return s.kill(left)
		}
		select {
		case <-ctx.Done():
			return left, context.Cause(ctx)
		case <-tick.C:
		}
	}
}

// livePIDs lists the recorded pids still alive plus any live process running
// from the sandbox's cluster directory.
func (s *Sandbox) livePIDs(recorded []process) ([]int, error) {
	seen := map[int]bool{}
	var pids []int
	for _, p := range recorded {
		if p.running() {
			seen[p.PID] = true
			pids = append(pids, p.PID)
		}
	}
	others, err := ProcessesOf(s.layout.ClusterDir())
	for _, pid := range others {
		if !seen[pid] {
			pids = append(pids, pid)
		}
	}
	return pids, err
}

// kill sends SIGKILL to pids and returns those still alive a moment later.
func (s *Sandbox) kill(pids []int) ([]int, error) {
	for _, pid := range pids {
		stepf(s.opts.Progress, "kill pid %d, still running after %s", pid, stopGrace)
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	time.Sleep(time.Second) // SIGKILL is asynchronous; give the kernel a moment
	var left []int
	for _, pid := range pids {
		if alive(pid) {
			left = append(left, pid)
		}
	}
	return left, nil
}

// removeRuntimeDir removes the runtime directory of the egress socket (a
// real node, when there was one, has removed it already), never through a
// mount: one left there (a real node's whose state was lost) keeps it.
func (s *Sandbox) removeRuntimeDir() error {
	dir := s.layout.runtimeDir()
	mounts, err := MountsUnder(dir.Path)
	if err != nil {
		return err
	}
	if len(mounts) > 0 {
		return fmt.Errorf("runtime directory %s still holds mounts %v; not removing it", dir.Path, mounts)
	}
	return dir.Remove()
}
