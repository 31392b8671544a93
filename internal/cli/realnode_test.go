package cli

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
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
// example's pinned inputs, then `artifacts import --deliver containerd` through
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
	res := run(t, "artifacts", "import", s.Layout, "--deliver", "containerd", "--grant", "ctr="+ctr,
		"--containerd-address", node.Containerd, "--receipts", t.TempDir())
	if res.code != ExitOK {
		t.Fatalf("artifacts import --deliver containerd: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	ref, err := artifact.Resolve(buildSpec, "web", "")
	if err != nil {
		t.Fatal(err)
	}
	// sandbox load takes the same layout; loading an image again is harmless.
	doc := wantSchema(t, run(t, "sandbox", "load", s.Layout, "--name", rn.Info.Name, "--dir", rn.Dir, "-o", "json"), "sandbox load -o json", "piceli.sandbox-load/v1")
	if images, _ := doc["images"].([]any); len(images) == 0 || !strings.Contains(fmt.Sprint(images), "hello/web") {
		t.Errorf("sandbox load -o json: images %v, want the hello web image", doc["images"])
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
	t.Parallel()
	rn, ref := helloOnRealNode(t)
	r := newImageSecretRelease(t, rn.Sandbox, ref, checkExtra(200, strings.TrimSpace(helloGreeting)), rolloutKeys, realWeb)
	r.rollsBackAFailingCheck(t, strings.TrimSpace(helloGreeting))
	assertAvailableOnRealNode(t, rn.Sandbox, r.ns)
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
	pods := webPods(t, sb, r.ns, "app.kubernetes.io/name=web")
	if len(pods) != 1 {
		t.Fatalf("web has pods %v, want one", pods)
	}
	a := startAccess(t, sb, r.spec)
	if got, err := body(a.url); got != helloGreeting {
		t.Fatalf("GET %s = %q, %v; want the container's greeting %q", a.url, got, err, helloGreeting)
	}

	if err := sb.Clientset.CoreV1().Pods(r.ns).Delete(t.Context(), pods[0], metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	var replacement string
	sandboxtest.Eventually(t, 2*time.Minute, "the replacement pod answering through access", func(context.Context) (bool, error) {
		if now := webPods(t, sb, r.ns, "app.kubernetes.io/name=web"); len(now) == 1 && now[0] != pods[0] {
			replacement = now[0]
		}
		got, _ := body(a.url)
		return replacement != "" && got == helloGreeting && strings.Contains(a.out.String(), "reconnected → pod "+replacement), nil
	})
	a.interrupt(t, sb)
}
