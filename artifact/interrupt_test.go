package artifact_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pynenc/piceli/artifact"
	"github.com/pynenc/piceli/internal/artifacttest"
)

// piceliBinary builds the piceli command once per test binary.
func piceliBinary(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("PICELI_BIN"); bin != "" {
		return bin
	}
	_, file, _, _ := runtime.Caller(0)
	bin := filepath.Join(t.TempDir(), "piceli")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/piceli")
	cmd.Dir = filepath.Join(filepath.Dir(file), "..")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build piceli: %v\n%s", err, out)
	}
	return bin
}

// children lists the pids whose parent is pid and whose command line
// contains word.
func children(pid int, word string) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so read after ')'.
		fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if len(fields) > 1 && fields[1] == strconv.Itoa(pid) && bytes.Contains(cmdline, []byte(word)) {
			out = append(out, child)
		}
	}
	return out
}

func alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return err == nil && !strings.Contains(string(stat), ") Z ")
}

// Acceptance 5: Ctrl-C (SIGINT to piceli) during a streamed import into
// containerd stops the granted ctr too; no child process is left and the
// receipt says the import was interrupted.
func TestInterruptedImportLeavesNoChildProcess(t *testing.T) {
	c := artifacttest.StartContainerd(t)
	bin := piceliBinary(t)
	dir := t.TempDir()
	big := make([]byte, 64<<20) // incompressible, so the stream takes a while
	rand.Read(big)
	if err := os.WriteFile(filepath.Join(dir, "blob.bin"), big, 0o644); err != nil {
		t.Fatal(err)
	}
	spec := filepath.Join(dir, "build.toml")
	os.WriteFile(spec, []byte("[image.big]\nfiles = [{ src = \"blob.bin\", dst = \"/data/blob.bin\" }]\n"), 0o644)
	if _, err := artifact.Pin(t.Context(), spec, artifact.PinOptions{}); err != nil {
		t.Fatal(err)
	}
	res := build(t, spec)

	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, "artifacts", "import", res.Layout, "--deliver", "containerd", "--grant", "ctr="+c.Ctr,
		"--containerd-address", c.Socket, "-o", "json")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var ctr []int
	deadline := time.Now().Add(20 * time.Second)
	for len(ctr) == 0 && time.Now().Before(deadline) {
		ctr = children(cmd.Process.Pid, "import")
		time.Sleep(2 * time.Millisecond)
	}
	if len(ctr) == 0 {
		cmd.Process.Kill()
		t.Fatalf("piceli started no ctr within 20s; stderr:\n%s", stderr.String())
	}
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); err == nil || code == 0 {
		t.Fatalf("interrupted import exited %d (err %v), want a failure; the import finished before the interrupt?\n%s", code, err, stderr.String())
	}
	for _, pid := range ctr {
		if alive(pid) {
			t.Errorf("ctr (pid %d) outlived the interrupted piceli", pid)
		}
	}
	var out struct {
		Receipt artifact.Receipt `json:"receipt"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("stdout is not the import document: %v\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	if out.Receipt.Outcome != artifact.OutcomeInterrupted || !strings.Contains(stderr.String(), "interrupted") {
		t.Errorf("receipt outcome %q, stderr:\n%s\nwant interrupted", out.Receipt.Outcome, stderr.String())
	}
}

// A granted tool that ignores SIGINT and SIGTERM and has a child of its
// own is still stopped, child and all, when the import's context ends:
// the whole process group gets SIGKILL after the grace period.
func TestCancelKillsTheToolsWholeProcessGroup(t *testing.T) {
	_, res := pinAndBuild(t)
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	tool := filepath.Join(dir, "ctr")
	script := "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'ctr stubborn 1.0'; exit 0; fi\n" +
		"trap '' INT TERM\nsleep 600 &\necho $$ $! > " + pidFile + "\nwait\n"
	if err := os.WriteFile(tool, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	var rec *artifact.Receipt
	go func() {
		var err error
		rec, err = artifact.Import(ctx, res.Layout, artifact.ImportOptions{Target: artifact.TargetContainerd, Grants: []artifact.Grant{{Tool: "ctr", Path: tool}}})
		done <- err
	}()
	var pids []int
	for deadline := time.Now().Add(20 * time.Second); len(pids) < 2 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		data, _ := os.ReadFile(pidFile)
		pids = nil
		for _, f := range strings.Fields(string(data)) {
			n, _ := strconv.Atoi(f)
			pids = append(pids, n)
		}
	}
	if len(pids) < 2 {
		t.Fatal("the stub tool did not start its child")
	}
	cancel()
	select {
	case err := <-done:
		if err == nil || rec == nil || rec.Outcome != artifact.OutcomeInterrupted {
			t.Fatalf("Import after cancel = %v, receipt %+v; want interrupted", err, rec)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Import did not return 30s after its context ended")
	}
	for _, pid := range pids {
		if alive(pid) {
			t.Errorf("pid %d of the tool's process group outlived the import", pid)
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}
