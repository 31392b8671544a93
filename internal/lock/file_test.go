package lock

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// envHelperDir makes the test binary, re-executed by startHolder,
// hold the file lock of that directory until killed.
const envHelperDir = "PICELI_LOCK_TEST_HELPER_DIR"

func TestFile(t *testing.T) {
	tests := []struct {
		name string
		run  func(t *testing.T, dir string)
	}{
		{"a second File in the same process is refused naming the holder", testSecondFileRefused},
		{"File after Unlock succeeds", testFileAfterUnlock},
		{"the lock file is owner-only in an owner-only directory", testFileModes},
		{"the lock dies with its process", testFileDiesWithProcess},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.run(t, filepath.Join(t.TempDir(), "state"))
		})
	}
}

func testSecondFileRefused(t *testing.T, dir string) {
	first := mustFile(t, dir, CurrentHolder("first"))
	defer first.Unlock()
	_, err := File(dir, CurrentHolder("second"))
	var held *HeldError
	if !errors.As(err, &held) || !errors.Is(err, ErrHeld) {
		t.Fatalf("second File(%s) = %v, want a *HeldError", dir, err)
	}
	if held.Holder.Run != "first" || held.Holder.PID != os.Getpid() {
		t.Errorf("second File names holder %v, want run first of pid %d", held.Holder, os.Getpid())
	}
	if want := "file " + filepath.Join(dir, "lock"); held.Where != want {
		t.Errorf("HeldError.Where = %q, want %q", held.Where, want)
	}
}

func testFileAfterUnlock(t *testing.T, dir string) {
	first := mustFile(t, dir, CurrentHolder("first"))
	if err := first.Unlock(); err != nil {
		t.Fatalf("Unlock() = %v", err)
	}
	if err := first.Unlock(); err != nil {
		t.Errorf("second Unlock() = %v, want nil", err)
	}
	second := mustFile(t, dir, CurrentHolder("second"))
	defer second.Unlock()
	if got := readHolder(filepath.Join(dir, holderFile)); got.Run != "second" {
		t.Errorf("holder file names run %q, want second", got.Run)
	}
}

func testFileModes(t *testing.T, dir string) {
	l := mustFile(t, dir, CurrentHolder("r"))
	defer l.Unlock()
	for path, want := range map[string]os.FileMode{
		dir: 0o700, filepath.Join(dir, lockFile): 0o600, filepath.Join(dir, holderFile): 0o600,
	} {
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := st.Mode().Perm(); got != want {
			t.Errorf("mode of %s = %v, want %v", path, got, want)
		}
	}
}

func testFileDiesWithProcess(t *testing.T, dir string) {
	child := startHolder(t, dir)
	_, err := File(dir, CurrentHolder("parent"))
	var held *HeldError
	if !errors.As(err, &held) || held.Holder.PID != child.Process.Pid {
		t.Fatalf("File(%s) while the child holds it = %v, want a *HeldError naming pid %d", dir, err, child.Process.Pid)
	}
	if got := readHolder(filepath.Join(dir, holderFile)); got.PID != child.Process.Pid {
		t.Errorf("holder file names pid %d, want the child's %d", got.PID, child.Process.Pid)
	}
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	child.Wait()
	l, err := File(dir, CurrentHolder("parent"))
	if err != nil {
		t.Fatalf("File(%s) right after the holder was killed = %v, want the lock", dir, err)
	}
	l.Unlock()
}

// startHolder re-executes the test binary as a process holding the
// lock of dir, and returns once it holds it.
func startHolder(t *testing.T, dir string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), envHelperDir+"="+dir)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start helper process: %v", err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "locked\n" {
		t.Fatalf("helper process said %q (%v), want \"locked\"", line, err)
	}
	return cmd
}

// TestMain runs the test binary as a lock holder when startHolder
// re-executes it with envHelperDir set, and as the tests otherwise.
func TestMain(m *testing.M) {
	if dir := os.Getenv(envHelperDir); dir != "" {
		holdLock(dir)
	}
	os.Exit(m.Run())
}

// holdLock takes the lock in dir, says so and waits to be killed.
func holdLock(dir string) {
	if _, err := File(dir, CurrentHolder("child")); err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(1)
	}
	os.Stdout.WriteString("locked\n")
	time.Sleep(time.Hour) // until killed
}

func mustFile(t *testing.T, dir string, h Holder) *FileLock {
	t.Helper()
	l, err := File(dir, h)
	if err != nil {
		t.Fatalf("File(%s) = %v", dir, err)
	}
	return l
}
