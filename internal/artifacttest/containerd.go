package artifacttest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pynenc/piceli/internal/rundir"
)

// Containerd is a containerd of one test.
type Containerd struct {
	Socket string // its gRPC socket
	Ctr    string // the ctr binary
	Dir    string
}

// StartContainerd starts Debian's containerd as root from a private
// config: its root and state under a fresh temporary directory, its
// sockets in that directory's runtime directory (see rundir), which fits a
// unix socket address however long $TMPDIR is, the CRI plugin off. It
// stops when the test ends.
func StartContainerd(t testing.TB) *Containerd {
	t.Helper()
	NeedRoot(t)
	bin := Need(t, "containerd", "containerd")
	ctr := Need(t, "ctr", "containerd")
	dir, err := os.MkdirTemp("", "ctrd-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	run := rundir.For(dir)
	if err := run.Create(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := run.Remove(); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
	c := &Containerd{Socket: filepath.Join(run.Path, "containerd.sock"), Ctr: ctr, Dir: dir}
	config := fmt.Sprintf(`version = 2
root = %q
state = %q
disabled_plugins = ["io.containerd.grpc.v1.cri"]
[grpc]
  address = %q
[ttrpc]
  address = %q
[debug]
  address = %q
`, filepath.Join(dir, "root"), filepath.Join(dir, "state"), c.Socket, c.Socket+".ttrpc", c.Socket+".debug")
	cfg := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(cfg, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	logFile := filepath.Join(dir, "containerd.log")
	start(t, exec.Command(bin, "--config", cfg), logFile)
	waitFor(t, 30*time.Second, "containerd", logFile, func(ctx context.Context) bool {
		return exec.CommandContext(ctx, ctr, "--address", c.Socket, "version").Run() == nil
	})
	return c
}

// Images lists the image names in namespace ns.
func (c *Containerd) Images(t testing.TB, ns string) []string {
	t.Helper()
	out, err := exec.Command(c.Ctr, "--address", c.Socket, "-n", ns, "images", "ls", "-q").CombinedOutput()
	if err != nil {
		t.Fatalf("ctr images ls: %v: %s", err, out)
	}
	return strings.Fields(string(out))
}
