package cli

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// syncBuffer is a bytes.Buffer the command writes while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// freePort returns a loopback port nothing listens on now (see
// sandboxtest.FreeLocalPort).
func freePort(t *testing.T) int { t.Helper(); return sandboxtest.FreeLocalPort(t) }

// listening reports whether /proc/net/tcp (or tcp6) has a socket in LISTEN
// state on port.
func listening(t *testing.T, port int) bool {
	t.Helper()
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		file, err := os.Open(f)
		if err != nil {
			t.Fatalf("open %s: %v", f, err)
		}
		sc := bufio.NewScanner(file)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) < 4 || fields[3] != "0A" { // 0A: LISTEN
				continue
			}
			if i := strings.LastIndexByte(fields[1], ':'); i >= 0 {
				if p, err := strconv.ParseUint(fields[1][i+1:], 16, 16); err == nil && int(p) == port {
					file.Close()
					return true
				}
			}
		}
		file.Close()
	}
	return false
}

// body GETs url without keeping the connection, and returns the body.
func body(url string) (string, error) {
	c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true}}
	resp, err := c.Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

// webPods lists the names of the pods of Deployment web, selected by
// selector, that are not being deleted.
func webPods(t *testing.T, sb *sandboxtest.Sandbox, ns, selector string) []string {
	t.Helper()
	list, err := sb.Clientset.CoreV1().Pods(ns).List(t.Context(), metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range list.Items {
		if p.DeletionTimestamp == nil {
			out = append(out, p.Name)
		}
	}
	return out
}

var forwardLine = regexp.MustCompile(`(?m)^web +http://127\.0\.0\.1:(\d+) +→ service/web:80 \(pod (\S+)\)$`)

// Acceptance 4, in-process: access forwards the Service's port to
// 127.0.0.1 and a request reaches the pod's target; deleting the pod makes
// it reconnect to the replacement and say so; SIGINT ends it with exit 0,
// no listener left (per /proc/net/tcp) and the goroutine count back where
// it started. On the sandbox's real node the same test reaches the
// container itself.
func TestAccessReconnectsAndEndsCleanlyOnSIGINT(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	r := newRelease(t, sb, "", map[string]string{
		"svc.yaml":    "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  selector:\n    app: web\n  ports:\n  - name: http\n    port: 80\n",
		"deploy.yaml": deploymentYAML("web", 1, ""),
	})
	r.apply(t, r.plan(t))
	first, second := sandboxtest.LoopbackHTTP(t), sandboxtest.LoopbackHTTP(t)
	pods := webPods(t, sb, r.ns, "app=web")
	if len(pods) != 1 {
		t.Fatalf("web has pods %v, want one", pods)
	}
	sb.ForwardPod(t, r.ns, pods[0], 80, first.Addr)
	a := startAccess(t, sb, r.spec)
	if a.pod != pods[0] {
		t.Fatalf("access forwards web to pod %s, want %s", a.pod, pods[0])
	}
	url, out := a.url, &a.out
	if got, err := body(url); got != first.Token {
		t.Fatalf("GET %s = %q, %v; want the pod's target's token", url, got, err)
	}

	if err := sb.Clientset.CoreV1().Pods(r.ns).Delete(t.Context(), pods[0], metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	var replacement string
	sandboxtest.Eventually(t, time.Minute, "the replacement pod", func(context.Context) (bool, error) {
		if now := webPods(t, sb, r.ns, "app=web"); len(now) == 1 && now[0] != pods[0] {
			replacement = now[0]
		}
		return replacement != "", nil
	})
	sb.ForwardPod(t, r.ns, replacement, 80, second.Addr)
	sandboxtest.Eventually(t, time.Minute, "a request reaching the replacement", func(context.Context) (bool, error) {
		got, err := body(url)
		return got == second.Token, err
	})
	if want := "web          reconnected → pod " + replacement + " (pod " + pods[0] + " "; !strings.Contains(out.String(), want) {
		t.Errorf("access did not say it reconnected (%q):\n%s", want, out.String())
	}

	a.interrupt(t, sb)
}

// accessRun is `piceli access` run in-process, forwarding web to a free
// loopback port, until the test sends SIGINT.
type accessRun struct {
	code        chan int
	out, errOut syncBuffer
	local       int
	url         string // web's forward
	pod         string // the pod it forwards to first
	before      int    // goroutines before it started
}

// startAccess starts access on spec and waits for its forwarding line.
func startAccess(t *testing.T, sb *sandboxtest.Sandbox, spec string) *accessRun {
	t.Helper()
	a := &accessRun{code: make(chan int, 1), local: freePort(t)}
	ctx, stop := SignalContext(context.Background())
	t.Cleanup(stop)
	sb.CloseIdleConnections()
	a.before = runtime.NumGoroutine()
	go func() {
		a.code <- Run(ctx, []string{"access", "--spec", spec, "--port", fmt.Sprintf("web=%d", a.local)}, &a.out, &a.errOut)
	}()
	sandboxtest.Eventually(t, time.Minute, "the forwarding line", func(context.Context) (bool, error) {
		return forwardLine.MatchString(a.out.String()), nil
	})
	m := forwardLine.FindStringSubmatch(a.out.String())
	if m[1] != strconv.Itoa(a.local) {
		t.Fatalf("access printed %q, want web on 127.0.0.1:%d", m[0], a.local)
	}
	a.url, a.pod = fmt.Sprintf("http://127.0.0.1:%d/", a.local), m[2]
	return a
}

// interrupt sends SIGINT and checks that access ends with exit 0, saying
// every forward closed, with no listener left on its port (per
// /proc/net/tcp) and the goroutine count back where it started.
func (a *accessRun) interrupt(t *testing.T, sb *sandboxtest.Sandbox) {
	t.Helper()
	sb.CloseIdleConnections()
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case c := <-a.code:
		if c != ExitOK {
			t.Fatalf("access after SIGINT: exit %d, want 0\n%s%s\nits goroutines still running:\n%s", c, a.out.String(), a.errOut.String(), accessGoroutines())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("access still runs 30s after SIGINT\n%s", a.errOut.String())
	}
	if listening(t, a.local) {
		t.Errorf("/proc/net/tcp still has a listener on %d after access ended", a.local)
	}
	sandboxtest.GoroutinesBack(t, a.before, "access ended")
	if !strings.Contains(a.errOut.String(), "every forward closed") {
		t.Errorf("access stderr does not say every forward closed:\n%s", a.errOut.String())
	}
}

// Acceptance 5: a taken local port is refused with exit 2, naming the
// port and the Service, before anything listens; a non-loopback address
// cannot be asked for.
func TestAccessRefusesATakenPortAndAnyOtherAddress(t *testing.T) {
	t.Parallel()
	sb := sandboxtest.Cluster(t)
	r := newRelease(t, sb, "", smallManifests())
	r.apply(t, r.plan(t))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	taken := ln.Addr().(*net.TCPAddr).Port

	res := run(t, "access", "--spec", r.spec, "--port", fmt.Sprintf("web=%d", taken))
	want := fmt.Sprintf("local port %d for web (service port 80) is already in use on 127.0.0.1", taken)
	if res.code != ExitRefused || !strings.Contains(res.stderr, want) {
		t.Errorf("access with port %d taken: exit %d, want 2 and %q\n%s", taken, res.code, want, res.stderr)
	}
	for _, args := range [][]string{
		{"--port", "web=0.0.0.0:8080"},
		{"--port", "web=[::]:8080"},
		{"--address", "0.0.0.0"},
		{"--only", "nope"},
		{"--port", "nope=9000"},
	} {
		res := run(t, append([]string{"access", "--spec", r.spec}, args...)...)
		if res.code != ExitRefused {
			t.Errorf("access %s: exit %d, want 2\n%s", strings.Join(args, " "), res.code, res.stderr)
		}
	}
}

// accessGoroutines returns the stacks of the goroutines still running
// access code, for a test that finds access did not end in time.
func accessGoroutines() string {
	buf := make([]byte, 1<<22)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "internal/access.") || strings.Contains(g, "release.(*Release).Access") {
			out = append(out, g)
		}
	}
	return strings.Join(out, "\n\n")
}
