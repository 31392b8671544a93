package cli

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/sandbox"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// The shop example, planned and applied through the CLI on a sandbox with
// its agent (no volume made in advance), exists in full with every object
// ready, its database's claim bound by the sandbox's provisioner, and a
// diff afterwards finds nothing to change; the run's journal holds an
// intent and an applied outcome for every write.
func TestApplyShopEndToEnd(t *testing.T) {
	t.Parallel()
	sb := appsSandbox(t)
	r := shopRelease(t, sb)
	forwardShop(t, sb, r.ns)

	p := r.plan(t)
	if n := p.Counts()[plan.Create]; n < 20 {
		t.Fatalf("plan of the shop creates %d objects, want the whole example", n)
	}
	start := time.Now()
	res := r.apply(t, p)
	t.Logf("apply of the shop's %d objects took %s", len(p.Steps), time.Since(start).Round(100*time.Millisecond))
	if !strings.Contains(res.stderr, "finished: revision 1") {
		t.Errorf("apply stderr does not report revision 1:\n%s", res.stderr)
	}
	for _, check := range []string{"store front (http)", "api health (http)", "database port (tcp)"} {
		if !strings.Contains(res.stderr, "check "+check+": passed") {
			t.Errorf("apply stderr does not report check %q passing:\n%s", check, res.stderr)
		}
	}
	r.assertFinished(t, p)
	r.assertAllCurrent(t, p)
	assertClaimBound(t, sb, r.ns, "data-db-0")
	r.diffExitCode(t)

	id, st := r.latestRun(t)
	for i, s := range p.Steps {
		if s.Action == plan.NoOp {
			continue
		}
		ss := st.Steps[i]
		if ss.Intents != 1 || ss.Status != journal.StepApplied || ss.UID == "" || ss.Action != string(s.Action) {
			t.Errorf("journal of run %s, step %d (%s): %+v; want one %s intent and an applied outcome with the UID", id, i, s.Ref, ss, s.Action)
		}
		live, err := r.get(t, s)
		if err != nil {
			t.Fatalf("get %s: %v", s.Ref, err)
		}
		if string(live.GetUID()) != ss.UID {
			t.Errorf("%s has UID %s, the journal recorded %s", s.Ref, live.GetUID(), ss.UID)
		}
		if s.Ref.Kind == "Deployment" {
			if live, ok, err := r.settle(t, s, autoscaledSettle, available); err == nil && !ok {
				t.Errorf("%s is not Available: %v", s.Ref, live.Object["status"])
			}
		}
	}
}

// forwardShop makes kwok send the port-forwards of the shop's front end
// and API (port 8080) and database (port 5432) pods to loopback servers
// answering 200 to every request, standing in for the containers the
// shop's checks reach. It returns a function that stops making them for
// new pods.
func forwardShop(t *testing.T, sb *sandboxtest.Sandbox, ns string) (stop func()) {
	t.Helper()
	var stops []func()
	for name, port := range map[string]int32{"web": 8080, "api": 8080, "db": 5432} {
		srv := sandboxtest.LoopbackHTTP(t)
		stops = append(stops, sb.OnEveryPod(t, ns, sandboxtest.PodRule{Selector: map[string]string{"app.kubernetes.io/name": name}, Port: port, Target: srv.Addr}))
	}
	return func() {
		for _, s := range stops {
			s()
		}
	}
}

// shopRelease copies examples/shop's spec to target a fresh namespace,
// with its composition read from the checkout, and without its
// [environments] (so the copy renders the app as declared, on one target). The images it takes from
// its build become stand-in digest references: kwok's pods run nothing,
// and the copy has no build.toml beside it.
func shopRelease(t *testing.T, sb *sandboxtest.Sandbox) *testRelease {
	t.Helper()
	example := filepath.Join(repoRoot(t), "examples", "shop")
	data, err := os.ReadFile(filepath.Join(example, "release.toml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	r := &testRelease{sb: sb, ns: sb.Namespace(t), name: "shop", spec: filepath.Join(dir, "release.toml"), stateDir: filepath.Join(dir, ".piceli-release")}
	s := string(data)
	if i := strings.Index(s, "\n[environments."); i >= 0 {
		s = s[:i+1]
	}
	for re, repl := range map[string]string{
		`(?m)^kubeconfig = .*$`:  "kubeconfig = " + quote(sb.Kubeconfig),
		`(?m)^context = .*$`:     "context = " + quote(sb.Context),
		`(?m)^namespace = .*$`:   "namespace = " + quote(r.ns),
		`(?m)^composition = .*$`: "composition = " + quote(filepath.Join(example, "infra.go")+":Build"),
	} {
		s = regexp.MustCompile(re).ReplaceAllLiteralString(s, repl)
	}
	s = regexp.MustCompile(`(?m)^(\w+) = \{ build = "(\w+)" \}$`).ReplaceAllString(s, `$1 = "piceli.local/shop/$2@sha256:`+strings.Repeat("0", 64)+`"`)
	writeFiles(t, dir, map[string]string{"release.toml": s})
	return r
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `\`, `\\`) + `"` }

// assertClaimBound checks that ns/claim is Bound to a volume of the
// sandbox's default class.
func assertClaimBound(t *testing.T, sb *sandboxtest.Sandbox, ns, claim string) {
	t.Helper()
	c, err := sb.Clientset.CoreV1().PersistentVolumeClaims(ns).Get(t.Context(), claim, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get PersistentVolumeClaim/%s/%s: %v", ns, claim, err)
	}
	if c.Status.Phase != corev1.ClaimBound || c.Spec.StorageClassName == nil || *c.Spec.StorageClassName != sandbox.StorageClassName {
		t.Errorf("PersistentVolumeClaim/%s/%s: phase %s, class %v; want Bound, class %s", ns, claim, c.Status.Phase, c.Spec.StorageClassName, sandbox.StorageClassName)
	}
}

// persistentVolumeFor creates a volume reserved for the claim ns/claim and
// deletes it when the test ends, for tests on a sandbox that may run
// without its provisioner (started by an older piceli). Where the agent
// runs, the claim gets the default class and is provisioned instead.
func persistentVolumeFor(t *testing.T, sb *sandboxtest.Sandbox, ns, claim, size string) {
	t.Helper()
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: ns + "-" + claim, Labels: map[string]string{sandboxtest.TestLabel: "true"}},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)},
			AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
			PersistentVolumeSource:        corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/nonexistent/piceli-test"}},
			ClaimRef:                      &corev1.ObjectReference{Namespace: ns, Name: claim},
		},
	}
	pvs := sb.Clientset.CoreV1().PersistentVolumes()
	if _, err := pvs.Create(t.Context(), pv, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create PersistentVolume/%s: %v", pv.Name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		pvs.Delete(ctx, pv.Name, metav1.DeleteOptions{})
	})
}

// available reports whether a Deployment's Available condition is True.
func available(u *unstructured.Unstructured) bool {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == "Available" && m["status"] == "True" {
			return true
		}
	}
	return false
}
