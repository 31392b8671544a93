package sandbox

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A component that died of a taken port is told apart from one that died
// of anything else, which is reported with its log.
func TestExitedAtStartNamesTheCause(t *testing.T) {
	s := ownSandbox(t)
	logs := filepath.Join(s.layout.ClusterDir(), "logs")
	if err := os.MkdirAll(logs, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(logs, "kube-scheduler.log"), []byte(`E1201 run.go:72] "command failed" err="failed to listen on 127.0.0.1:32750: listen tcp 127.0.0.1:32750: bind: address already in use"`+"\n"), 0o644)
	os.WriteFile(filepath.Join(logs, "etcd.log"), []byte("panic: data directory is corrupt\n"), 0o644)
	os.WriteFile(filepath.Join(logs, "kube-controller-manager.log"), []byte(`E1203 run.go:72] "command failed" err="failed to wait for apiserver being healthy: timed out waiting for the condition: failed to get apiserver /healthz status"`+"\n"), 0o644)

	if err := s.exitedAtStart("kube-scheduler"); !errors.Is(err, errPortLost) || !strings.Contains(err.Error(), "kube-scheduler") {
		t.Errorf("exitedAtStart(port taken) = %v; want errPortLost naming kube-scheduler", err)
	}
	if err := s.exitedAtStart("kube-controller-manager"); !errors.Is(err, errAPIServerSlow) || !startAgain(err) || !strings.Contains(err.Error(), "kube-controller-manager") {
		t.Errorf("exitedAtStart(API server slow) = %v; want errAPIServerSlow naming kube-controller-manager", err)
	}
	err := s.exitedAtStart("etcd")
	if startAgain(err) || err == nil || !strings.Contains(err.Error(), "data directory is corrupt") {
		t.Errorf("exitedAtStart(other cause) = %v; want the log, not errPortLost", err)
	}
}

// settle fails at once, while create still runs, when a recorded component
// no longer runs.
func TestSettleFailsOnExitedComponent(t *testing.T) {
	s := ownSandbox(t)
	pids := filepath.Join(s.layout.ClusterDir(), "pids")
	if err := os.MkdirAll(pids, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(pids, "kwok-controller.pid"), []byte("999999999\n"), 0o644)
	start := time.Now()
	err := s.settle(t.Context(), make(chan error)) // create never returns
	if err == nil || !strings.Contains(err.Error(), "kwok-controller exited while starting") || time.Since(start) > 5*time.Second {
		t.Fatalf("settle(a dead component) = %v after %s; want it named at once", err, time.Since(start))
	}
}

// The port lock is exclusive: a second taker waits until the first lets go.
func TestPortLockIsExclusive(t *testing.T) {
	old := portLockPath
	portLockPath = filepath.Join(t.TempDir(), "ports.lock")
	t.Cleanup(func() { portLockPath = old })
	unlock, err := portLock(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	if _, err := portLock(ctx); err == nil {
		t.Fatal("a second portLock was granted while the first was held")
	}
	unlock()
	again, err := portLock(t.Context())
	if err != nil {
		t.Fatalf("portLock after unlock = %v", err)
	}
	again()
}
