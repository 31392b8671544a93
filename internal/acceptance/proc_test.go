package acceptance

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/pynenc/piceli/internal/apply"
)

// binary is piceli built once per test binary, with the failpoints
// compiled in (-tags piceli_failpoints), so a scenario can kill it at a
// named point, pause it there or fail its journal's fsync.
var binary struct {
	once      sync.Once
	dir, path string
	err       error
}

// piceliBinary builds cmd/piceli from this checkout, once.
func piceliBinary(t *testing.T) string {
	t.Helper()
	binary.once.Do(func() {
		binary.dir, binary.err = os.MkdirTemp("", "piceli-acceptance-bin-")
		if binary.err != nil {
			return
		}
		binary.path = filepath.Join(binary.dir, "piceli")
		cmd := exec.Command("go", "build", "-tags", "piceli_failpoints", "-o", binary.path, "./cmd/piceli")
		cmd.Dir = repoRoot()
		if out, err := cmd.CombinedOutput(); err != nil {
			binary.err = fmt.Errorf("go build -tags piceli_failpoints ./cmd/piceli: %v\n%s", err, out)
		}
	})
	if binary.err != nil {
		t.Fatal(binary.err)
	}
	return binary.path
}

// repoRoot is the Piceli checkout the suite runs in.
func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(filepath.Dir(file)))
}

// proc is piceli running as a subprocess of a scenario.
type proc struct {
	cmd  *exec.Cmd
	out  bytes.Buffer // stdout and stderr together
	done chan struct{}
}

// start runs the built binary with args and the environment variables in
// env added (a failpoint, a journal fault); its TMPDIR is the scenario's.
// The after-checks prove it ended.
func (e *env) start(env map[string]string, args ...string) *proc {
	e.t.Helper()
	return e.startWrapped(nil, env, args...)
}

// startWrapped is start with the binary run by a wrapper command (such as
// prlimit and its arguments) when wrapper is not empty.
func (e *env) startWrapped(wrapper []string, env map[string]string, args ...string) *proc {
	e.t.Helper()
	argv := append(append(append([]string{}, wrapper...), piceliBinary(e.t)), args...)
	p := &proc{cmd: exec.Command(argv[0], argv[1:]...), done: make(chan struct{})}
	p.cmd.Env = append(os.Environ(), "TMPDIR="+e.tmp)
	for k, v := range env {
		p.cmd.Env = append(p.cmd.Env, k+"="+v)
	}
	p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.out
	if err := p.cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	go func() { p.cmd.Wait(); close(p.done) }()
	e.mu.Lock()
	e.procs = append(e.procs, p)
	e.mu.Unlock()
	return p
}

// failpoint is the environment arming one failpoint.
func failpoint(spec string) map[string]string { return map[string]string{apply.FailpointEnv: spec} }

// wait waits for the process to end, at most d, records its output and
// says how it ended: "killed" for SIGKILL, else "exit N".
func (e *env) wait(p *proc, d time.Duration) string {
	e.t.Helper()
	select {
	case <-p.done:
	case <-time.After(d):
		p.cmd.Process.Kill()
		<-p.done
		e.t.Fatalf("piceli %s still ran after %s; output:\n%s", strings.Join(p.cmd.Args[1:], " "), d, p.out.String())
	}
	e.record("subprocess "+strings.Join(p.cmd.Args[1:], " "), p.out.String())
	ws := p.cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() && ws.Signal() == syscall.SIGKILL {
		return "killed"
	}
	return fmt.Sprintf("exit %d", ws.ExitStatus())
}

// wantKilled waits for p and fails the scenario unless a failpoint killed
// it.
func (e *env) wantKilled(p *proc) {
	e.t.Helper()
	if got := e.wait(p, 2*time.Minute); got != "killed" {
		e.t.Fatalf("piceli %s: %s, want killed by its failpoint; output:\n%s", strings.Join(p.cmd.Args[1:], " "), got, p.out.String())
	}
}
