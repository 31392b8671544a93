package acceptance

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/pynenc/piceli/internal/sandbox"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// extra is a second sandbox the suite starts for the scenarios that need
// a cluster of their own: another cluster to plan against, an API server
// to kill and restart. It is started on first use, lent to one scenario
// at a time, and stopped (and proven gone) when TestAcceptance ends.
var extra struct {
	once sync.Once
	use  sync.Mutex
	dir  string
	sb   *sandbox.Sandbox
	test *sandboxtest.Sandbox
	err  error
}

// extraSandbox starts the extra sandbox if needed and lends it to the
// scenario until it ends.
func extraSandbox(c *sc) *sandboxtest.Sandbox {
	c.t.Helper()
	extra.once.Do(startExtra)
	if extra.err != nil {
		c.t.Fatalf("extra sandbox: %v", extra.err)
	}
	extra.use.Lock()
	c.t.Cleanup(extra.use.Unlock)
	return extra.test
}

func startExtra() {
	dir, err := os.MkdirTemp("", "piceli-acceptance-sandbox-")
	if err != nil {
		extra.err = err
		return
	}
	extra.dir = dir
	sb, err := sandbox.Open(sandbox.Options{Name: fmt.Sprintf("acc%d", time.Now().UnixNano()%1_000_000), Dir: dir, ToolsDir: os.DevNull})
	if err != nil {
		extra.err = err
		return
	}
	if missing := sb.Binaries().Missing(); len(missing) > 0 {
		extra.err = fmt.Errorf("binaries %v missing from %s (the running sandbox's cache)", missing, sb.Binaries().Dir)
		return
	}
	extra.sb = sb
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	info, err := sb.Up(ctx)
	if err != nil {
		extra.err = err
		return
	}
	extra.test, extra.err = testSandbox(info)
}

// testSandbox connects to a started sandbox as sandboxtest does.
func testSandbox(info sandbox.Info) (*sandboxtest.Sandbox, error) {
	cfg, err := sandbox.RESTConfig(info.Kubeconfig, info.Context)
	if err != nil {
		return nil, err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &sandboxtest.Sandbox{Name: info.Name, Dir: filepath.Dir(info.Kubeconfig), Kubeconfig: info.Kubeconfig, Context: info.Context, RESTConfig: cfg, Clientset: cs, Dynamic: dyn}, nil
}

// stopExtra stops the extra sandbox, if one was started, and fails unless
// none of its processes is left.
func stopExtra(t *testing.T) {
	if extra.sb == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := extra.sb.Down(ctx); err != nil {
		t.Errorf("stop the extra sandbox: %v", err)
	}
	if left, err := sandbox.ProcessesOf(extra.sb.Layout().ClusterDir()); err != nil || len(left) > 0 {
		t.Errorf("process left: the extra sandbox's processes %v still run (%v)", left, err)
	}
	os.RemoveAll(extra.dir)
}

// apiServer is the extra sandbox's kube-apiserver process, as kwokctl
// recorded it.
type apiServer struct {
	pidFile string
	argv    []string
	env     []string
	cwd     string
	log     string
}

// findAPIServer reads how the extra sandbox's API server was started.
func findAPIServer(t *testing.T) (*apiServer, int) {
	t.Helper()
	cluster := extra.sb.Layout().ClusterDir()
	a := &apiServer{pidFile: filepath.Join(cluster, "pids", "kube-apiserver.pid"), log: filepath.Join(cluster, "logs", "kube-apiserver.log")}
	pid, err := strconv.Atoi(strings.TrimSpace(string(readFile(t, a.pidFile))))
	if err != nil {
		t.Fatalf("pid of the extra sandbox's API server: %v", err)
	}
	proc := fmt.Sprintf("/proc/%d/", pid)
	a.argv = strings.Split(strings.TrimRight(string(readFile(t, proc+"cmdline")), "\x00"), "\x00")
	a.env = strings.Split(strings.TrimRight(string(readFile(t, proc+"environ")), "\x00"), "\x00")
	if a.cwd, err = os.Readlink(proc + "cwd"); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(readFile(t, proc+"cmdline"), []byte(cluster)) {
		t.Fatalf("pid %d is not the extra sandbox's API server: %q", pid, a.argv)
	}
	return a, pid
}

// killAPIServer kills the extra sandbox's API server with SIGKILL and
// waits until it is gone; restart starts it again as it was.
func killAPIServer(t *testing.T) *apiServer {
	t.Helper()
	a, pid := findAPIServer(t)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatalf("kill the API server (pid %d): %v", pid, err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for !gone(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("the API server (pid %d) survived SIGKILL", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return a
}

// gone reports whether pid no longer runs (a zombie counts as gone).
func gone(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	i := bytes.LastIndexByte(stat, ')')
	return i > 0 && i+2 < len(stat) && stat[i+2] == 'Z'
}

// restart starts the API server as it was, records its pid where kwokctl
// looks (so the sandbox's Down stops it) and waits until it is ready.
func (a *apiServer) restart(t *testing.T, x *sandboxtest.Sandbox) {
	t.Helper()
	logFile, err := os.OpenFile(a.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	cmd := exec.Command(a.argv[0], a.argv[1:]...)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = a.cwd, a.env, logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("restart the API server: %v", err)
	}
	go cmd.Wait()
	writeFile(t, a.pidFile, strconv.Itoa(cmd.Process.Pid)+"\n")
	sandboxtest.Eventually(t, 2*time.Minute, "the restarted API server ready", func(ctx context.Context) (bool, error) {
		_, err := x.Clientset.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		return err == nil, err
	})
}
