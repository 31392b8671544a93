package lock

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/gofrs/flock"
)

func TestProbe(t *testing.T) {
	tests := []struct {
		name string
		run  func(t *testing.T, dir string)
	}{
		{"a state directory never locked is not held, and stays untouched", testProbeNeverLocked},
		{"a lock held in this process is held, naming its holder", testProbeHeldHere},
		{"a lock released by Unlock is not held and names nobody", testProbeAfterUnlock},
		{"a killed holder's lock is not held and names the killed holder", testProbeKilledHolder},
		{"a File racing a Probe takes the lock", testFileWaitsOutProbe},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.run(t, filepath.Join(t.TempDir(), "state"))
		})
	}
}

func testProbeNeverLocked(t *testing.T, dir string) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	h, held := mustProbe(t, dir)
	if held || h != (Holder{}) {
		t.Errorf("Probe(never locked) = %v, %v; want not held, no holder", h, held)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("Probe left %d entries in the state directory, want none", len(entries))
	}
	if h, held := mustProbe(t, filepath.Join(dir, "missing")); held || h != (Holder{}) {
		t.Errorf("Probe(missing directory) = %v, %v; want not held, no holder", h, held)
	}
}

func testProbeHeldHere(t *testing.T, dir string) {
	l := mustFile(t, dir, CurrentHolder("run-a"))
	defer l.Unlock()
	h, held := mustProbe(t, dir)
	if !held || h.Run != "run-a" || h.PID != os.Getpid() {
		t.Errorf("Probe(held here) = %v, %v; want held by run-a of pid %d", h, held, os.Getpid())
	}
	if again, err := File(dir, CurrentHolder("run-b")); err == nil {
		again.Unlock()
		t.Errorf("File after a Probe of a held lock succeeded; the Probe must not free it")
	}
}

func testProbeAfterUnlock(t *testing.T, dir string) {
	l := mustFile(t, dir, CurrentHolder("run-a"))
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
	if h, held := mustProbe(t, dir); held || h != (Holder{}) {
		t.Errorf("Probe(after Unlock) = %v, %v; want not held, no holder", h, held)
	}
}

func testProbeKilledHolder(t *testing.T, dir string) {
	child := startHolder(t, dir)
	if h, held := mustProbe(t, dir); !held || h.PID != child.Process.Pid {
		t.Fatalf("Probe(held by the child) = %v, %v; want held by pid %d", h, held, child.Process.Pid)
	}
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	child.Wait()
	h, held := mustProbe(t, dir)
	if held || h.PID != child.Process.Pid || h.Run != "child" {
		t.Errorf("Probe(holder killed) = %v, %v; want not held, the killed child's record", h, held)
	}
}

// testFileWaitsOutProbe holds the shared lock a Probe takes for longer than
// a Probe does, so the File certainly meets it.
func testFileWaitsOutProbe(t *testing.T, dir string) {
	mustFile(t, dir, CurrentHolder("setup")).Unlock()
	probe := flock.New(filepath.Join(dir, lockFile), flock.SetFlag(os.O_RDONLY))
	if ok, err := probe.TryRLock(); !ok || err != nil {
		t.Fatalf("take the shared lock: %v, %v", ok, err)
	}
	time.AfterFunc(50*time.Millisecond, func() { probe.Close() })
	l, err := File(dir, CurrentHolder("run-a"))
	if err != nil {
		t.Fatalf("File while a probe holds the lock for 50ms = %v, want the lock", err)
	}
	l.Unlock()
}

func mustProbe(t *testing.T, dir string) (Holder, bool) {
	t.Helper()
	h, held, err := Probe(dir)
	if err != nil {
		t.Fatalf("Probe(%s) = %v", dir, err)
	}
	return h, held
}
