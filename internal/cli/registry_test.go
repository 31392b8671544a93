package cli

import (
	"encoding/json"
	"net/netip"
	"path/filepath"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/internal/artifacttest"
	"github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// registryPlan runs a registry command without --approve: it must stop at
// the approval (exit 3) and print the plan, whose hash it returns.
func registryPlan(t *testing.T, args ...string) *plan.Plan {
	t.Helper()
	res := run(t, append(args, "-o", "json")...)
	if res.code != ExitApproval || !strings.Contains(res.stderr, "approval required") {
		t.Fatalf("piceli %s: exit %d, want 3 (approval required)\n%s", strings.Join(args, " "), res.code, res.stderr)
	}
	var p plan.Plan
	if err := json.Unmarshal([]byte(res.stdout), &p); err != nil || p.Hash == "" {
		t.Fatalf("plan of %v: %v\n%s", args, err, res.stdout)
	}
	return &p
}

// The in-cluster registry is a release like any other: install plans and
// waits for approval, the approved plan applies through the engine, a push
// through a port-forward to its Service reaches it, and uninstall removes
// the Deployment and Service but keeps the claim with the images.
func TestRegistryInstallPushUninstall(t *testing.T) {
	t.Parallel()
	sb := sandboxtest.Cluster(t)
	ns := sb.Namespace(t)
	persistentVolumeFor(t, sb, ns, "registry-data", "1Gi")
	dir := filepath.Join(t.TempDir(), "registry")
	target := []string{"--dir", dir, "--kubeconfig", sb.Kubeconfig, "--context", sb.Context, "--namespace", ns}
	image := "registry.invalid/distribution/registry@sha256:" + strings.Repeat("ab", 32)

	if res := run(t, append([]string{"registry", "install", "--image", "registry:2"}, target...)...); res.code != ExitRefused || !strings.Contains(res.stderr, "pinned by digest") {
		t.Errorf("install with an unpinned image: exit %d, stderr %s", res.code, res.stderr)
	}
	install := append([]string{"registry", "install", "--image", image, "--storage", "1Gi"}, target...)
	p := registryPlan(t, install...)
	if n := p.Counts()[plan.Create]; n != 3 {
		t.Fatalf("install plans %d creates, want the claim, Deployment and Service: %v", n, p.Counts())
	}
	mustRun(t, append(install, "--approve", p.Hash)...)
	dep, err := sb.Clientset.AppsV1().Deployments(ns).Get(t.Context(), "registry", metav1.GetOptions{})
	if err != nil || dep.Status.AvailableReplicas != 1 || dep.Spec.Template.Spec.Containers[0].Image != image {
		t.Fatalf("Deployment/%s/registry after install: %v, %+v", ns, err, dep.Status)
	}
	if res := mustRun(t, "registry", "status", "--dir", dir); !strings.Contains(res.stdout, "finished") {
		t.Errorf("registry status:\n%s", res.stdout)
	}

	// kwok fakes the registry's pod: its port-forward goes to a real
	// registry on loopback, so the push lands somewhere real.
	loopback := artifacttest.StartRegistry(t, "")
	pods, err := sb.Clientset.CoreV1().Pods(ns).List(t.Context(), metav1.ListOptions{LabelSelector: "app.kubernetes.io/name=registry"})
	if err != nil || len(pods.Items) != 1 {
		t.Fatalf("registry pods: %v, %d", err, len(pods.Items))
	}
	sb.ForwardPod(t, ns, pods.Items[0].Name, 5000, netip.MustParseAddrPort(loopback.Addr))
	build := artifacttest.Services(t, t.TempDir())
	mustRun(t, "artifacts", "pin", "--spec", build)
	mustRun(t, "artifacts", "build", "--spec", build)
	res := mustRun(t, "artifacts", "import", filepath.Join(filepath.Dir(build), ".piceli-build", "oci"), "--deliver", "registry", "--only", "gateway",
		"--via-forward", "service/registry:5000", "--kubeconfig", sb.Kubeconfig, "--context", sb.Context, "--namespace", ns)
	if !strings.Contains(res.stdout, "succeeded: 1 image(s) to registry") || loopback.Blobs(t) != 4 {
		t.Errorf("push to the in-cluster registry: stdout %s; registry holds %d blobs, want gateway's 4", res.stdout, loopback.Blobs(t))
	}

	uninstall := append([]string{"registry", "uninstall"}, target...)
	p = registryPlan(t, uninstall...)
	for _, s := range p.Steps {
		want := plan.Delete
		if s.Ref.Kind == "PersistentVolumeClaim" {
			want = plan.NoOp
		}
		if s.Action != want {
			t.Errorf("uninstall plans %s for %s, want %s", s.Action, s.Ref, want)
		}
	}
	mustRun(t, append(uninstall, "--approve", p.Hash)...)
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := sb.Clientset.AppsV1().Deployments(ns).Get(t.Context(), "registry", metav1.GetOptions{})
		_, serr := sb.Clientset.CoreV1().Services(ns).Get(t.Context(), "registry", metav1.GetOptions{})
		if apierrors.IsNotFound(err) && apierrors.IsNotFound(serr) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after uninstall: Deployment %v, Service %v; want both gone", err, serr)
		}
		time.Sleep(250 * time.Millisecond)
	}
	if _, err := sb.Clientset.CoreV1().PersistentVolumeClaims(ns).Get(t.Context(), "registry-data", metav1.GetOptions{}); err != nil {
		t.Errorf("the registry's claim is gone after uninstall: %v", err)
	}
}
