package importer_test

import (
	"context"
	"net/http"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/internal/importer"
	"github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/sandbox"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
	"github.com/pynenc/piceli/release"
)

// liveApp is the app the live tests apply with kubectl.
const liveApp = "testdata/live/app.yaml"

// liveObjects are the objects of liveApp, which import must find and
// nothing else.
var liveObjects = []string{
	"ConfigMap/web-config", "CronJob/report", "Deployment/web", "HorizontalPodAutoscaler/web", "Ingress/web",
	"Job/migrate", "NetworkPolicy/db-from-web", "PersistentVolumeClaim/cache", "PodDisruptionBudget/web",
	"Role/config-reader", "RoleBinding/config-reader", "Secret/db-credentials", "Secret/site-tls",
	"Service/db", "Service/web", "ServiceAccount/api", "StatefulSet/db",
}

// TestImportLiveThenPlanOnlyAdopts is acceptance 2: a namespace applied
// with kubectl, imported live, planned with the generated module: every
// step adopts or changes nothing, and nothing blocks.
func TestImportLiveThenPlanOnlyAdopts(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	ns := importNamespace(t, sb)
	kubectlApply(t, sb, ns, liveApp)
	waitForPods(t, sb, ns)
	lists := &listCounter{}
	res, err := importer.FromCluster(t.Context(), importer.Target{
		Kubeconfig: sb.Kubeconfig, Context: sb.Context, Namespace: ns, WrapTransport: lists.wrap,
	}, importer.Options{Out: filepath.Join(t.TempDir(), "module"), PiceliSource: piceliSource(t), CacheDir: filepath.Join(sharedDir(t), "cache")})
	if err != nil {
		t.Fatalf("import live: %v", err)
	}
	lists.checkOnePerKind(t)
	checkNoCanary(t, res.Dir, nil, "live-canary-password-7f3a", "live-canary-cert-9b12", "live-canary-key-4c5e")
	r, err := release.Open(res.Spec, release.Options{CacheDir: filepath.Join(sharedDir(t), "cache")})
	if err != nil {
		t.Fatal(err)
	}
	p, err := r.Plan(t.Context(), release.PlanOptions{})
	if err != nil {
		t.Fatalf("plan the imported module: %v", err)
	}
	var got []string
	for _, s := range p.Steps {
		got = append(got, s.Ref.Kind+"/"+s.Ref.Name)
		if (s.Action != plan.Adopt && s.Action != plan.NoOp) || s.Blocked != "" || len(s.Conflicts) > 0 {
			t.Errorf("%s: action %s, blocked %q, conflicts %v; want adopt or no-op, nothing blocked", s.Ref, s.Action, s.Blocked, s.Conflicts)
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, liveObjects) {
		t.Errorf("planned objects = %v, want %v (no pods, ReplicaSets, claims of the StatefulSet, kube-root-ca.crt or default ServiceAccount)", got, liveObjects)
	}
}

// importNamespace creates a fresh namespace named imp-..., deleted when
// the test ends.
func importNamespace(t *testing.T, sb *sandboxtest.Sandbox) string {
	t.Helper()
	created, err := sb.Clientset.CoreV1().Namespaces().Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		GenerateName: "imp-", Labels: map[string]string{sandboxtest.TestLabel: "true"},
	}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create test namespace: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := sb.Clientset.CoreV1().Namespaces().Delete(ctx, created.Name, metav1.DeleteOptions{}); err != nil {
			t.Errorf("delete test Namespace/%s: %v", created.Name, err)
		}
	})
	return created.Name
}

// kubectlApply applies file with the sandbox's kubectl, client-side, as a
// team would before moving to Piceli.
func kubectlApply(t *testing.T, sb *sandboxtest.Sandbox, ns, file string) {
	t.Helper()
	dir, err := sandbox.DefaultBinDir()
	if err != nil {
		sandboxtest.Unavailable(t, err.Error())
	}
	kubectl := sandbox.Binaries{Dir: dir}.Path(sandbox.BinKubectl)
	if _, err := exec.LookPath(kubectl); err != nil {
		sandboxtest.Unavailable(t, "no kubectl among the sandbox binaries: "+err.Error())
	}
	cmd := exec.CommandContext(t.Context(), kubectl, "--kubeconfig", sb.Kubeconfig, "--context", sb.Context, "--namespace", ns, "apply", "-f", file)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("kubectl apply -f %s: %v\n%s", file, err, out)
	}
}

// waitForPods waits until the Deployment's controllers made its
// ReplicaSet and pods, which import must leave out.
func waitForPods(t *testing.T, sb *sandboxtest.Sandbox, ns string) {
	t.Helper()
	ctx := sandboxtest.Context(t, 60*time.Second)
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		rs, err1 := sb.Clientset.AppsV1().ReplicaSets(ns).List(ctx, metav1.ListOptions{})
		pods, err2 := sb.Clientset.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err1 == nil && err2 == nil && len(rs.Items) > 0 && len(pods.Items) >= 2 {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no ReplicaSet and pods in %s: %v %v", ns, err1, err2)
		case <-tick.C:
		}
	}
}

// listCounter counts the LIST requests import makes, by path.
type listCounter struct {
	mu    sync.Mutex
	paths map[string]int
}

func (c *listCounter) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		if req.Method == http.MethodGet && strings.Contains(req.URL.Path, "/namespaces/") && !req.URL.Query().Has("watch") {
			parts := strings.Split(strings.Trim(req.URL.Path, "/"), "/")
			if len(parts) >= 3 && parts[len(parts)-3] == "namespaces" {
				c.mu.Lock()
				if c.paths == nil {
					c.paths = map[string]int{}
				}
				c.paths[req.URL.Path]++
				c.mu.Unlock()
			}
		}
		return rt.RoundTrip(req)
	})
}

// checkOnePerKind fails unless every kind was listed, and listed once.
func (c *listCounter) checkOnePerKind(t *testing.T) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.paths) < len(liveKinds) {
		t.Errorf("import listed %d kinds (%v), want at least the %d of the app", len(c.paths), c.paths, len(liveKinds))
	}
	for p, n := range c.paths {
		if n != 1 {
			t.Errorf("import listed %s %d times, want once", p, n)
		}
	}
	for _, k := range liveKinds {
		found := false
		for p := range c.paths {
			found = found || strings.HasSuffix(p, "/"+k)
		}
		if !found {
			t.Errorf("import never listed %s", k)
		}
	}
}

// liveKinds are the resources of liveApp.
var liveKinds = []string{"configmaps", "secrets", "serviceaccounts", "roles", "rolebindings", "deployments", "services",
	"statefulsets", "persistentvolumeclaims", "jobs", "cronjobs", "horizontalpodautoscalers", "poddisruptionbudgets",
	"ingresses", "networkpolicies", "pods", "replicasets"}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
