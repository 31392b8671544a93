package artifact_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pynenc/piceli/artifact"
	"github.com/pynenc/piceli/internal/artifacttest"
)

// The hello example's web image, built from the lock it ships and imported
// through the granted ctr, runs in a real containerd (runc, host network,
// no kubelet): it answers on 127.0.0.1 as the non-root user 65532. What
// acceptance 8 adds on the sandbox's real node is the kubelet starting it.
func TestHelloImageRunsInContainerd(t *testing.T) {
	c := artifacttest.StartContainerd(t)
	artifacttest.Need(t, "runc", "runc")
	_, file, _, _ := runtime.Caller(0)
	src := filepath.Join(filepath.Dir(file), "..", "examples", "hello")
	dir := t.TempDir()
	for _, rel := range []string{"build.toml", "build.lock", "web/go.mod", "web/main.go"} {
		data, err := os.ReadFile(filepath.Join(src, rel))
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Join(dir, filepath.Dir(rel)), 0o755)
		os.WriteFile(filepath.Join(dir, rel), data, 0o644)
	}
	// The shipped lock names files relative to the checkout; the copy is a
	// project of its own, so it is pinned afresh.
	if _, err := artifact.Pin(t.Context(), filepath.Join(dir, "build.toml"), artifact.PinOptions{}); err != nil {
		t.Fatal(err)
	}
	res := build(t, filepath.Join(dir, "build.toml"))
	if _, err := artifact.Import(t.Context(), res.Layout, artifact.ImportOptions{
		Target: artifact.TargetContainerd, Grants: []artifact.Grant{{Tool: "ctr", Path: c.Ctr}},
		Containerd: artifact.ContainerdOptions{Address: c.Socket},
	}); err != nil {
		t.Fatalf("Import: %v", err)
	}
	port := artifacttest.FreePort(t)
	ctr := func(args ...string) *exec.Cmd {
		return exec.Command(c.Ctr, append([]string{"--address", c.Socket, "-n", "k8s.io"}, args...)...)
	}
	var out bytes.Buffer
	run := ctr("run", "--rm", "--net-host", "--env", "PORT="+strconv.Itoa(port), res.Images[0].Reference, "hello-web")
	run.Stdout, run.Stderr = &out, &out
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		ctr("task", "kill", "-s", "SIGKILL", "hello-web").Run()
		done := make(chan struct{})
		go func() { run.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			run.Process.Kill()
		}
	}()
	body := getEventually(t, "http://127.0.0.1:"+strconv.Itoa(port)+"/", &out)
	if body != "hello from piceli\n" {
		t.Errorf("GET / = %q, want the web server's greeting", body)
	}
	tasks, _ := ctr("task", "ls").Output()
	for _, line := range strings.Split(string(tasks), "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "hello-web" {
			status, _ := os.ReadFile("/proc/" + f[1] + "/status")
			if !strings.Contains(string(status), "Uid:\t65532\t") {
				t.Errorf("the web server runs as %q, want the non-root uid 65532", uidLine(string(status)))
			}
			return
		}
	}
	t.Errorf("no task hello-web in %s", tasks)
}

func uidLine(status string) string {
	for _, l := range strings.Split(status, "\n") {
		if strings.HasPrefix(l, "Uid:") {
			return l
		}
	}
	return ""
}

// getEventually GETs url until it answers, for up to 20s, on loopback only.
func getEventually(t *testing.T, url string, log *bytes.Buffer) string {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{Proxy: nil}, Timeout: 2 * time.Second}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	for {
		resp, err := client.Get(url)
		if err == nil {
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			return string(b)
		}
		select {
		case <-ctx.Done():
			t.Fatalf("GET %s: %v; ctr run output:\n%s", url, err, log.String())
		case <-time.After(100 * time.Millisecond):
		}
	}
}
