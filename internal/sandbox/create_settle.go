package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// kwokctl picks each component's port by trying to listen on it and closing
// it again, counting down from 32767 in every run; the component binds it
// a moment later. Two sandboxes created at once therefore pick the same
// ports, and one component of the slower loses its port and exits, while
// kwokctl reports the cluster ready (seen here: the scheduler and kwok
// gone, nodes never Ready). Up holds a machine-wide lock from kwokctl's
// start until every component listens, and starts again when a component
// still lost its port (to a process that does not take the lock).
//
// On a loaded machine the API server may also take longer to finish its
// bootstrap (RBAC roles, priority levels) than kube-controller-manager
// waits for it (20 s), and the controller manager exits. That too is
// started again.
const (
	createAttempts = 3
	settleTimeout  = 30 * time.Second
)

// portLockPath is the lock every piceli on this machine takes while its
// sandbox's components bind their ports.
var portLockPath = filepath.Join(os.TempDir(), "piceli-sandbox-ports.lock")

// errPortLost marks a component that exited because its port was taken.
var errPortLost = errors.New("lost its port to another process")

// errAPIServerSlow marks a component that exited because the API server
// was not yet healthy when it gave up waiting.
var errAPIServerSlow = errors.New("gave up waiting for the API server to become healthy")

// startAgain reports a start failure that another start may not repeat.
func startAgain(err error) bool {
	return errors.Is(err, errPortLost) || errors.Is(err, errAPIServerSlow)
}

// createSettled creates the cluster (see create) and returns once each of
// its components listens, starting again when one lost its port or gave up
// on a slow API server.
func (s *Sandbox) createSettled(ctx context.Context) error {
	for attempt := 1; ; attempt++ {
		err := s.createLocked(ctx)
		if !startAgain(err) || attempt == createAttempts {
			return err
		}
		stepf(s.opts.Progress, "%v; starting sandbox %q again", err, s.layout.Name)
		if _, err := s.stop(ctx); err != nil {
			return err
		}
	}
}

// createLocked runs create under the port lock and waits until the
// components listen. A component that dies meanwhile ends kwokctl's wait
// for the cluster at once (it would wait a minute for an API server that
// lost its port) and explains create's failure.
func (s *Sandbox) createLocked(ctx context.Context) error {
	unlock, err := portLock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	created := make(chan error, 1)
	go func() { created <- s.create(ctx) }()
	if err := s.settle(ctx, created); err != nil {
		cancel()
		<-created
		return err
	}
	return nil
}

// portLock takes the machine-wide port lock. When the file cannot be opened
// (another user's, say) it goes without: the retry still covers a clash.
func portLock(ctx context.Context) (func(), error) {
	f, err := os.OpenFile(portLockPath, os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		return func() {}, nil
	}
	if err := flockWait(ctx, f); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", portLockPath, err)
	}
	return func() { f.Close() }, nil
}

// settle polls kwokctl's components while create runs (created gets its
// result) and until each listens on a TCP port once it has returned. A
// component that exited fails it, with errPortLost when its log says why.
func (s *Sandbox) settle(ctx context.Context, created <-chan error) error {
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	var deadline <-chan time.Time // runs once create has returned
	for {
		listening, err := s.componentsListening()
		if err != nil || (listening && deadline != nil) {
			return err
		}
		select {
		case err := <-created:
			if err != nil {
				if _, lost := s.componentsListening(); lost != nil {
					return lost
				}
				return err
			}
			created, deadline = nil, time.After(settleTimeout)
		case <-deadline:
			return fmt.Errorf("wait for the sandbox's components to listen: still not after %s", settleTimeout)
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-tick.C:
		}
	}
}

// componentsListening reports whether every component kwokctl recorded
// listens on a TCP port; an error names one that exited.
func (s *Sandbox) componentsListening() (bool, error) {
	procs, err := readPIDDir(filepath.Join(s.layout.ClusterDir(), "pids"), s.layout.ClusterDir())
	if err != nil {
		return false, fmt.Errorf("read sandbox pids: %w", err)
	}
	all := true
	for _, p := range procs {
		if !p.running() {
			return false, s.exitedAtStart(p.Component)
		}
		if addrs, err := Listeners(p.PID); err != nil || len(addrs) == 0 {
			all = false
		}
	}
	return all, nil
}

// exitedAtStart describes a component that exited while starting, from the
// end of its log.
func (s *Sandbox) exitedAtStart(component string) error {
	path := filepath.Join(s.layout.ClusterDir(), "logs", component+".log")
	data, _ := os.ReadFile(path)
	tail := lastLines(string(data), 5)
	if strings.Contains(tail, "address already in use") {
		return fmt.Errorf("%s %w", component, errPortLost)
	}
	if strings.Contains(tail, "failed to wait for apiserver being healthy") {
		return fmt.Errorf("%s %w", component, errAPIServerSlow)
	}
	return fmt.Errorf("%s exited while starting:\n%s\n(full log: %s)", component, tail, path)
}
