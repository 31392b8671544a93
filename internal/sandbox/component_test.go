package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// loopScript runs until it is told to stop; trapTERM chooses whether SIGTERM
// ends it. The script's $0 names the cluster directory, as every own
// component's command line must.
func loopScript(l Layout, name string, trapTERM bool) ownComponent {
	trap := `trap "exit 0" TERM;`
	if !trapTERM {
		trap = `trap "" TERM;`
	}
	return ownComponent{Name: name, Path: "/bin/sh",
		Args: []string{"-c", trap + " while :; do sleep 0.05; done", filepath.Join(l.ClusterDir(), name)}}
}

func ownSandbox(t *testing.T) *Sandbox {
	t.Helper()
	l, err := NewLayout(t.TempDir(), "own")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(l.ClusterDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	return &Sandbox{layout: l}
}

// An own component is listed with kwokctl's, running, and stopOwn ends it and
// forgets it.
func TestOwnComponentIsListedAndStopped(t *testing.T) {
	s := ownSandbox(t)
	pid, err := s.startOwn(loopScript(s.layout, "helper", true))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	procs, err := readProcesses(s.layout.ClusterDir())
	if err != nil {
		t.Fatal(err)
	}
	if len(procs) != 1 || procs[0].Component != "helper" || procs[0].PID != pid || !procs[0].running() {
		t.Fatalf("readProcesses = %+v; want helper (pid %d) running", procs, pid)
	}
	if err := s.stopOwn(t.Context()); err != nil {
		t.Fatal(err)
	}
	if alive(pid) {
		t.Errorf("pid %d alive after stopOwn", pid)
	}
	if procs, _ := readProcesses(s.layout.ClusterDir()); len(procs) != 0 {
		t.Errorf("readProcesses after stopOwn = %+v; want none", procs)
	}
}

// A component that ignores SIGTERM is killed once the grace period is over.
func TestOwnComponentIgnoringTermIsKilled(t *testing.T) {
	s := ownSandbox(t)
	pid, err := s.startOwn(loopScript(s.layout, "stubborn", false))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	procs, _ := readOwn(s.layout)
	time.Sleep(100 * time.Millisecond) // let the shell install its trap
	_ = syscall.Kill(pid, syscall.SIGTERM)
	if err := waitExited(t.Context(), procs, 300*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if alive(pid) {
		t.Errorf("pid %d alive after waitExited", pid)
	}
}

// A component whose command line does not name the cluster directory is
// refused before it starts: Down could never find it.
func TestOwnComponentMustNameClusterDir(t *testing.T) {
	s := ownSandbox(t)
	_, err := s.startOwn(ownComponent{Name: "lost", Path: "/bin/sleep", Args: []string{"300"}})
	if err == nil || !strings.Contains(err.Error(), "Down could not find it") {
		t.Fatalf("startOwn = %v; want a refusal naming the reason", err)
	}
	if _, err := os.Stat(s.layout.OwnDir()); !os.IsNotExist(err) {
		t.Errorf("OwnDir exists after a refused start: %v", err)
	}
}

// An own component that died on start is reported with the end of its log:
// the log goes with the sandbox's directory, the error stays.
func TestADeadComponentIsReportedWithItsLog(t *testing.T) {
	s := ownSandbox(t)
	pid, err := s.startOwn(ownComponent{Name: "kubelet", Path: "/bin/sh", Args: []string{"-c", "echo 'E1203 listen tcp 127.0.0.1:10250: bind: address already in use'; exit 1", filepath.Join(s.layout.ClusterDir(), "kubelet")}})
	if err != nil {
		t.Fatal(err)
	}
	for alive(pid) {
		time.Sleep(10 * time.Millisecond)
	}
	_, err = s.ownPID("kubelet")
	if err == nil || !strings.Contains(err.Error(), "address already in use") {
		t.Errorf("ownPID(a dead kubelet) = %v; want its log's last line in the error", err)
	}
}
