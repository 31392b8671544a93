package sandboxtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/pynenc/piceli/internal/sandbox"
)

// realNodeLockPath serializes the tests of every package that start a
// sandbox with a real node: a machine runs one real node at a time (see
// sandbox.RealNodeName), and `go test ./...` runs packages in parallel.
var realNodeLockPath = filepath.Join(os.TempDir(), "piceli-real-node-tests.lock")

// realNodeWait bounds how long a test waits for another test's real node.
const realNodeWait = 15 * time.Minute

var (
	holdersMu sync.Mutex
	holders   = map[testing.TB]bool{}
)

// LockRealNode makes the test the only one on this machine that may start
// a real node, waiting for other tests (in this or other test binaries) to
// finish with theirs, until the test ends. A test may call it more than
// once; only the first call waits.
func LockRealNode(t testing.TB) {
	t.Helper()
	holdersMu.Lock()
	held := holders[t]
	holders[t] = true
	holdersMu.Unlock()
	if held {
		return
	}
	f, err := os.OpenFile(realNodeLockPath, os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		t.Fatalf("lock the real node: %v", err)
	}
	start := time.Now()
	logged := false
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			t.Fatalf("lock %s: %v", realNodeLockPath, err)
		}
		if time.Since(start) > realNodeWait {
			f.Close()
			t.Fatalf("another test held this machine's real node (%s) for over %s", realNodeLockPath, realNodeWait)
		}
		if !logged {
			t.Logf("waiting for another test to finish with this machine's real node")
			logged = true
		}
		time.Sleep(200 * time.Millisecond)
	}
	if logged {
		t.Logf("real node free after %s", time.Since(start).Round(100*time.Millisecond))
	}
	t.Cleanup(func() {
		f.Close()
		holdersMu.Lock()
		delete(holders, t)
		holdersMu.Unlock()
	})
}

// OpenRealNode opens, without starting, a sandbox with a real node and
// fakeNodes fake ones, an agent run by this test binary (see AgentMain)
// and the cached binaries, in a temporary directory at least DeepDir
// characters long: every real-node test shows that the sandbox's sockets do
// not depend on the depth of its directory. It first takes the machine's
// real node for the test (LockRealNode), skips (fails under CI=true) when
// this machine cannot run one, and is stopped, its directory removed, when
// the test ends. -short skips it: a real node changes the host.
func OpenRealNode(t testing.TB, fakeNodes int) *sandbox.Sandbox {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: a real node changes the host (cgroups, a bridge, mounts); run without -short, as root")
	}
	LockRealNode(t)
	top, err := os.MkdirTemp("", "pcl")
	if err != nil {
		t.Fatal(err)
	}
	dir := deepIn(top)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	sb, err := sandbox.Open(sandbox.Options{
		Name: fmt.Sprintf("r%d", time.Now().UnixNano()%1_000_000_000), Dir: dir, Nodes: fakeNodes,
		ToolsDir: os.DevNull, RealNode: true, Progress: testLog{t}, Agent: AgentCommand(),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if _, err := sb.Down(ctx); err != nil {
			t.Errorf("cleanup: %v", err)
		}
		// Never remove through a mount (a pod's volume may be one).
		if left, err := sandbox.MountsUnder(top); err != nil || len(left) > 0 {
			t.Errorf("cleanup: mounts left under %s: %v %v; not removing it", top, left, err)
			return
		}
		os.RemoveAll(top)
	})
	RequireRealNode(t, sb.Binaries())
	return sb
}

// DeepDir is the length, in characters, of the directories OpenRealNode
// puts its sandboxes in: far past what a unix socket's path may hold.
const DeepDir = 200

// deepIn is a path below top, in nested folders, of DeepDir characters or
// a few more.
func deepIn(top string) string {
	dir := top
	for len(dir) < DeepDir {
		dir = filepath.Join(dir, deepFolder)
	}
	return dir
}

// deepFolder is the name of each folder of the chain deepIn makes.
const deepFolder = "a-deep-checkout"

// IsRealNodeTop reports whether dir is the top of a directory OpenRealNode
// made for a real node's sandbox (of this or another test binary): a
// folder whose only entry is the chain deepIn makes. Such a sandbox's
// network namespaces cannot be read as files, so sweeps leave it alone.
func IsRealNodeTop(dir string) bool {
	entries, err := os.ReadDir(dir)
	return err == nil && len(entries) == 1 && entries[0].IsDir() && entries[0].Name() == deepFolder
}

// RealNode is a started sandbox with a real node, and clients for it.
type RealNode struct {
	*Sandbox
	Info sandbox.Info
	Box  *sandbox.Sandbox
}

// StartRealNode opens (OpenRealNode) and starts a sandbox with a real node
// and no fake nodes, and connects to it.
func StartRealNode(t testing.TB) *RealNode {
	t.Helper()
	sb := OpenRealNode(t, 0)
	start := time.Now()
	info, err := sb.Up(Context(t, 3*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("sandbox with real node up (node Ready) in %s", time.Since(start).Round(10*time.Millisecond))
	api, err := Connect(info.Kubeconfig, info.Context)
	if err != nil {
		t.Fatal(err)
	}
	return &RealNode{Sandbox: api, Info: info, Box: sb}
}

// testLog sends sandbox progress lines to the test log.
type testLog struct{ t testing.TB }

func (p testLog) Step(line string) { p.t.Log(line) }

// APIServerEnv is the environment that points an in-cluster client in a
// container on the real node at the API server (see
// sandbox.RealNodeInfo.APIServerEnv): KUBERNETES_SERVICE_HOST and
// KUBERNETES_SERVICE_PORT. The certificate carries that address; a client
// dialling by name verifies sandbox.APIServerName. It fails the test when
// the node has no API forwarder.
func (r *RealNode) APIServerEnv(t testing.TB) []corev1.EnvVar {
	t.Helper()
	node, ok, err := r.Box.RealNode()
	if err != nil || !ok {
		t.Fatalf("RealNode() = %+v, %t, %v; want the real node", node, ok, err)
	}
	env := node.APIServerEnv()
	if env == nil {
		t.Fatalf("real node %+v has no API forwarder for its pods", node)
	}
	return env
}
