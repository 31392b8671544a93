package cli

import (
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/artifact"
	"github.com/pynenc/piceli/internal/sandbox"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// helloGreeting is what the hello example's web server answers.
const helloGreeting = "hello from piceli\n"

// realWeb is the Deployment web running the hello example's web image:
// it serves 8080, is Ready once GET / answers there (the kubelet's probe,
// over the real node's bridge), behind a Service on port 80.
var realWeb = goComposition{
	web:  "\t\tapp.Ports(8080),\n\t\tapp.Ready(app.HTTPGet(\"/\", 8080)),\n",
	body: "\ta.Service(web, app.PortTo(80, 8080))\n",
}

// helloOnRealNode starts a sandbox with a real node and delivers the hello
// example's web image to it as a user does: `artifacts build` from the
// example's pinned inputs, then `artifacts import --to containerd` through
// the granted ctr into the node's containerd. It returns the sandbox and
// the image's digest reference.
func helloOnRealNode(t *testing.T) (*sandboxtest.RealNode, string) {
	t.Helper()
	rn := sandboxtest.StartRealNode(t)
	node, ok, err := rn.Box.RealNode()
	if err != nil || !ok {
		t.Fatalf("RealNode() = %+v, %t, %v", node, ok, err)
	}
	ctr, err := exec.LookPath("ctr")
	if err != nil {
		sandboxtest.Unavailable(t, "no ctr (Debian package containerd) to import the hello image with")
	}
	buildExample(t, "hello")
	buildSpec := filepath.Join(repoRoot(t), "examples", "hello", artifact.SpecFile)
	s, err := artifact.LoadSpec(buildSpec)
	if err != nil {
		t.Fatal(err)
	}
	res := run(t, "artifacts", "import", s.Layout, "--to", "containerd", "--grant", "ctr="+ctr,
		"--containerd-address", node.Containerd, "--receipts", t.TempDir())
	if res.code != ExitOK {
		t.Fatalf("artifacts import --to containerd: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	ref, err := artifact.Resolve(buildSpec, "web", "")
	if err != nil {
		t.Fatal(err)
	}
	return rn, ref
}

// assertAvailableOnRealNode checks that Deployment web is Available and
// its pods run on the real node.
func assertAvailableOnRealNode(t *testing.T, sb *sandboxtest.Sandbox, ns string) {
	t.Helper()
	d, err := sb.Clientset.AppsV1().Deployments(ns).Get(t.Context(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	available := false
	for _, c := range d.Status.Conditions {
		available = available || (c.Type == appsv1.DeploymentAvailable && c.Status == "True")
	}
	if !available || d.Status.ReadyReplicas != 1 {
		t.Errorf("Deployment web: Available %t, %d ready; want Available with its one replica ready", available, d.Status.ReadyReplicas)
	}
	pods, err := sb.Clientset.CoreV1().Pods(ns).List(t.Context(), metav1.ListOptions{LabelSelector: "app.kubernetes.io/name=web"})
	if err != nil || len(pods.Items) == 0 {
		t.Fatalf("pods of web: %v, %v", pods, err)
	}
	for _, p := range pods.Items {
		if p.Spec.NodeName != sandbox.RealNodeName {
			t.Errorf("pod %s runs on %q, want %s", p.Name, p.Spec.NodeName, sandbox.RealNodeName)
		}
	}
}

// Artifacts acceptance 8 and checks acceptance 1 on the real node: the
// hello image, built by `artifacts build` and imported through the granted
// ctr, runs; its Deployment becomes Available through the kubelet's
// readiness probe; the http check passes against the container itself.
// Expecting another status makes the run fail (exit 1) and, with
// on_failure = "rollback", the previous revision is back, objects and
// secret version, and history shows both.
func TestHelloImageChecksAndRollbackOnTheRealNode(t *testing.T) {
	rn, ref := helloOnRealNode(t)
	r := newImageSecretRelease(t, rn.Sandbox, ref, checkExtra(200, strings.TrimSpace(helloGreeting)), rolloutKeys, realWeb)
	r.writeSecretFile(t, "secret/pw.txt", "version-one")
	first := r.apply(t, r.plan(t))
	if !strings.Contains(first.stderr, "check home page (http): passed") {
		t.Errorf("apply stderr does not report the check passing:\n%s", first.stderr)
	}
	assertAvailableOnRealNode(t, rn.Sandbox, r.ns)
	v1 := revealed(t, r.spec, secretName, "1")

	r.writeSecretFile(t, "secret/pw.txt", "version-two")
	r.setBroken(t, false, checkExtra(201, strings.TrimSpace(helloGreeting)))
	p := r.plan(t)
	res := run(t, "release", "apply", "--spec", r.spec, "--approve", p.Hash)
	if res.code != ExitFailed {
		t.Fatalf("apply with a failing check: exit %d, want 1\n%s", res.code, res.stderr)
	}
	for _, want := range []string{`check "home page": GET / answered status 200, want 201`, "rolled back to revision 1", "finished: revision 2"} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("apply stderr does not say %q:\n%s", want, res.stderr)
		}
	}
	if live := r.liveSecretData(t, secretName); !maps.Equal(live, v1) {
		t.Errorf("after the rollback the live Secret does not hold version 1 (file %q)", live["file"])
	}
	assertRollbackHistory(t, r.stateDir)
	assertAvailableOnRealNode(t, rn.Sandbox, r.ns)

	r.setBroken(t, false, checkExtra(200, strings.TrimSpace(helloGreeting)))
	if again := run(t, "release", "check", "--spec", r.spec); again.code != ExitOK || !strings.Contains(again.stdout, "passed  home page (http)") {
		t.Errorf("release check: exit %d, want 0 and the check passed\n%s%s", again.code, again.stdout, again.stderr)
	}
}

// Checks acceptance 4 on the real node: access forwards web's port to
// 127.0.0.1 and a request reaches the running container; deleting its pod
// makes access reconnect to the replacement the kubelet starts; SIGINT
// ends it with no listener left and the goroutine count back.
func TestAccessReachesTheRealContainerAndReconnects(t *testing.T) {
	rn, ref := helloOnRealNode(t)
	sb := rn.Sandbox
	r := newImageSecretRelease(t, sb, ref, "", rolloutKeys, realWeb)
	r.writeSecretFile(t, "secret/pw.txt", "version-one")
	r.apply(t, r.plan(t))
	pods := realWebPods(t, sb, r.ns)
	if len(pods) != 1 {
		t.Fatalf("web has pods %v, want one", pods)
	}
	local := freePort(t)

	ctx, stop := SignalContext(context.Background())
	defer stop()
	closeIdleOf(sb)
	before := runtime.NumGoroutine()
	var out, errOut syncBuffer
	code := make(chan int, 1)
	go func() {
		code <- Run(ctx, []string{"access", "--spec", r.spec, "--port", fmt.Sprintf("web=%d", local)}, &out, &errOut)
	}()
	sandboxtest.Eventually(t, time.Minute, "the forwarding line", func(context.Context) (bool, error) {
		return forwardLine.MatchString(out.String()), nil
	})
	url := "http://127.0.0.1:" + strconv.Itoa(local) + "/"
	if got, err := body(url); got != helloGreeting {
		t.Fatalf("GET %s = %q, %v; want the container's greeting %q", url, got, err, helloGreeting)
	}

	if err := sb.Clientset.CoreV1().Pods(r.ns).Delete(t.Context(), pods[0], metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	var replacement string
	sandboxtest.Eventually(t, 2*time.Minute, "the replacement pod answering through access", func(context.Context) (bool, error) {
		if now := realWebPods(t, sb, r.ns); len(now) == 1 && now[0] != pods[0] {
			replacement = now[0]
		}
		got, _ := body(url)
		return replacement != "" && got == helloGreeting && strings.Contains(out.String(), "reconnected → pod "+replacement), nil
	})

	closeIdleOf(sb)
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case c := <-code:
		if c != ExitOK {
			t.Fatalf("access after SIGINT: exit %d, want 0\n%s%s", c, out.String(), errOut.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("access still runs 30s after SIGINT\n%s", errOut.String())
	}
	if listening(t, local) {
		t.Errorf("/proc/net/tcp still has a listener on %d after access ended", local)
	}
	assertGoroutinesBack(t, before)
}

// realWebPods lists the running, not deleted pods of Deployment web.
func realWebPods(t *testing.T, sb *sandboxtest.Sandbox, ns string) []string {
	t.Helper()
	list, err := sb.Clientset.CoreV1().Pods(ns).List(t.Context(), metav1.ListOptions{LabelSelector: "app.kubernetes.io/name=web"})
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
