package artifacttest

import (
	"context"
	"net"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

// Need returns the path of program, or skips the test (fails it under
// CI=true) naming the Debian package that provides it.
func Need(t testing.TB, program, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(program)
	if err == nil {
		return p
	}
	for _, dir := range []string{"/usr/sbin", "/usr/bin", "/sbin"} {
		if _, err := os.Stat(dir + "/" + program); err == nil {
			return dir + "/" + program
		}
	}
	msg := program + " not found: install the Debian package " + pkg + " (.ci/run does)"
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s; under CI=true this test must run", msg)
	}
	t.Skip(msg)
	return ""
}

// NeedRoot skips (fails under CI=true) unless the test runs as root, as a
// containerd of its own needs.
func NeedRoot(t testing.TB) {
	t.Helper()
	if os.Geteuid() == 0 {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("this test starts containerd and must run as root under CI=true")
	}
	t.Skip("this test starts containerd and needs root")
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// start runs cmd until the test ends; it is stopped by its pid, then
// waited for.
func start(t testing.TB, cmd *exec.Cmd, logFile string) {
	t.Helper()
	log, err := os.Create(logFile)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", cmd.Path, err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); log.Close(); close(done) }()
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
}

// waitFor polls ok every 50ms for up to d, failing the test with what.
func waitFor(t testing.TB, d time.Duration, what, logFile string, ok func(context.Context) bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for !ok(ctx) {
		select {
		case <-ctx.Done():
			log, _ := os.ReadFile(logFile)
			t.Fatalf("%s not ready after %s; its log:\n%s", what, d, log)
		case <-tick.C:
		}
	}
}

func addr(port int) string { return "127.0.0.1:" + strconv.Itoa(port) }
