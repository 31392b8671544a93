package sandboxtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pynenc/piceli/internal/sandbox"
)

// NodeAppRef names the image NodeAppImage builds.
const NodeAppRef = "localhost/piceli-test/nodeapp:1"

// nodeAppPackage is the program NodeAppImage packs (see its doc comment for
// what it does).
const nodeAppPackage = "github.com/pynenc/piceli/internal/sandbox/sandboxtest/nodeapp"

// RequireRealNode skips the test, or fails it when CI=true, unless this
// machine can run a sandbox's real node: root, the Debian packages
// containerd, runc, containernetworking-plugins and iproute2 (.ci/run
// installs them), and the kubelet and pause in the binary cache bins.
func RequireRealNode(t testing.TB, bins sandbox.Binaries) {
	t.Helper()
	reason := ""
	if err := sandbox.CheckRealNodeHost(); err != nil {
		reason = err.Error()
	}
	if missing := append(bins.Missing(), bins.MissingRealNode()...); len(missing) > 0 {
		reason += "\nbinaries missing from " + bins.Dir + ": " + strings.Join(missing, ", ") + " (run `piceli sandbox build`)"
	}
	if reason == "" {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("real node unavailable under CI=true: %s", reason)
	}
	t.Skipf("real node unavailable: %s", reason)
}

// NodeAppImage builds the nodeapp program statically and packs it alone
// into an image named NodeAppRef, written as a docker archive in a
// temporary directory; it returns the archive's path, for Sandbox.Load.
func NodeAppImage(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	exe := filepath.Join(dir, "nodeapp")
	cmd := exec.Command("go", "build", "-trimpath", "-o", exe, nodeAppPackage)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build %s: %v\n%s", nodeAppPackage, err, out)
	}
	archive := filepath.Join(dir, "nodeapp.tar")
	f, err := os.Create(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := (sandbox.ExecImage{Ref: NodeAppRef, Executable: exe}).WriteTarball(f); err != nil {
		t.Fatal(err)
	}
	return archive
}
