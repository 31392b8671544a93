package controller_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/pynenc/piceli/api/v1alpha1"
	"github.com/pynenc/piceli/controller"
	"github.com/pynenc/piceli/internal/sandbox"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// webDeployment is a Deployment whose pod template carries annotations.
func webDeployment(annotations map[string]string) map[string]string {
	var ann strings.Builder
	for k, v := range annotations {
		fmt.Fprintf(&ann, "        %s: %q\n", k, v)
	}
	tmplMeta := "      labels:\n        app: web\n"
	if ann.Len() > 0 {
		tmplMeta += "      annotations:\n" + ann.String()
	}
	return map[string]string{"web.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  selector:
    matchLabels:
      app: web
  template:
    metadata:
` + tmplMeta + `    spec:
      containers:
      - name: web
        image: example.invalid/web@sha256:` + strings.Repeat("0", 64) + `
`}
}

// #35 acceptance 3's failure half: a revision whose runs fail is tried
// again with backoff, at most five times, then Stalled with nothing more
// written; a sync tries it again, and a new revision proceeds.
func TestAFailingRevisionBacksOffThenStallsUntilASyncOrANewRevision(t *testing.T) {
	h := startController(t, 0)
	ns := h.ns
	h.grantDeployer(t, ns, nil)
	h.src.set(webDeployment(h.sb.SimulateAnnotations(t, sandbox.SimulateImagePullBackOff)))
	h.createRelease(t, ns, "app", v1alpha1.ReleaseSpec{
		Policy:       &v1alpha1.Policy{Actions: []string{"create", "update"}},
		ReadyTimeout: metav1.Duration{Duration: 2 * time.Second},
	})
	var attempts []time.Time
	rel := h.waitFor(t, ns, "app", "five failed runs, then Stalled", func(r *v1alpha1.Release) bool {
		if f := r.Status.Failure; f != nil && int(f.Attempts) > len(attempts) {
			attempts = append(attempts, time.Now())
		}
		return r.Status.State == v1alpha1.StateStalled
	})
	if f := rel.Status.Failure; f == nil || f.Attempts != v1alpha1.MaxAttempts || !strings.Contains(stalledMessage(rel), "5 runs of") {
		t.Fatalf("stalled with failure %+v: %q", f, stalledMessage(rel))
	}
	if n := len(attempts); n >= 3 && attempts[n-1].Sub(attempts[n-2]) < attempts[1].Sub(attempts[0]) {
		t.Errorf("the waits between attempts did not grow: %v", attempts)
	}
	before := h.versions(t, ns)
	writes := h.watchWrites(t, ns)
	time.Sleep(10 * time.Second) // five intervals
	if w := writes(); len(w) > 0 {
		t.Errorf("written in %s while the Release was Stalled: %v", ns, w)
	}
	for obj, v := range h.versions(t, ns) {
		if before[obj] != v {
			t.Errorf("%s was written while the Release was Stalled (resourceVersion %s → %s)", obj, before[obj], v)
		}
	}
	if h.release(t, ns, "app").Status.Failure.Attempts != v1alpha1.MaxAttempts {
		t.Fatal("a stalled revision was tried again by itself")
	}

	if _, err := controller.Sync(sandboxtest.Context(t, 30*time.Second), h.client, types.NamespacedName{Namespace: ns, Name: "app"}); err != nil {
		t.Fatal(err)
	}
	h.waitFor(t, ns, "app", "the sync tries the revision again", func(r *v1alpha1.Release) bool {
		return r.Status.Failure != nil && r.Status.Failure.Attempts < v1alpha1.MaxAttempts
	})

	h.src.set(webDeployment(nil)) // a revision that works
	rel = h.waitFor(t, ns, "app", "the new revision is applied", func(r *v1alpha1.Release) bool { return r.Status.State == v1alpha1.StateReady })
	if rel.Status.Failure != nil {
		t.Fatalf("failure %+v still recorded after a good run", rel.Status.Failure)
	}
}

// webApp is Deployment web and its Service, port servicePort → 8080.
func webApp(servicePort int) map[string]string {
	files := webDeployment(nil)
	files["svc.yaml"] = fmt.Sprintf(`apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector:
    app: web
  ports:
  - port: %d
    targetPort: 8080
`, servicePort)
	return files
}

// #35 acceptance 3: a revision whose checks fail is rolled back exactly
// once (onFailure: rollback), then Stalled, and nothing more is written
// for ten intervals.
func TestARevisionWhoseChecksFailIsRolledBackOnceThenStalls(t *testing.T) {
	h := startController(t, 0)
	ns := h.ns
	h.grantDeployer(t, ns, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") }))
	t.Cleanup(srv.Close)
	h.sb.OnEveryPod(t, ns, sandboxtest.PodRule{Selector: map[string]string{"app": "web"}, Port: 8080, Target: netip.MustParseAddrPort(strings.TrimPrefix(srv.URL, "http://"))})
	h.src.set(webApp(80))
	h.createRelease(t, ns, "app", v1alpha1.ReleaseSpec{
		Policy:    &v1alpha1.Policy{Actions: []string{"create", "update"}},
		OnFailure: "rollback",
		Checks:    []v1alpha1.Check{{Name: "home", HTTP: &v1alpha1.HTTPCheck{Service: "web", Port: 80, Path: "/", BodyContains: "ok"}}},
	})
	h.waitFor(t, ns, "app", "revision 1 is applied and its check passes", func(r *v1alpha1.Release) bool {
		return r.Status.State == v1alpha1.StateReady && len(r.Status.Checks) == 1 && r.Status.Checks[0].Passed
	})

	h.src.set(webApp(81)) // the check's port 80 is gone: it fails
	rel := h.waitFor(t, ns, "app", "revision 2 fails its check and stalls", func(r *v1alpha1.Release) bool { return r.Status.State == v1alpha1.StateStalled })
	if f := rel.Status.Failure; f == nil || !f.ChecksFailed || f.Attempts != 1 {
		t.Fatalf("failure %+v; want one run, its checks failed", rel.Status.Failure)
	}
	time.Sleep(3 * time.Second) // the pass after the stall settles
	before := h.versions(t, ns)
	writes := h.watchWrites(t, ns)
	time.Sleep(10 * 2 * time.Second) // ten intervals
	if w := writes(); len(w) > 0 {
		t.Errorf("written in %s while the Release was Stalled: %v", ns, w)
	}
	for obj, v := range h.versions(t, ns) {
		if before[obj] != v {
			t.Errorf("%s was written while the Release was Stalled (resourceVersion %s → %s)", obj, before[obj], v)
		}
	}
	rel = h.release(t, ns, "app")
	rollbacks := 0
	for _, run := range rel.Status.Runs {
		if strings.HasPrefix(run.Message, "rollback") {
			rollbacks++
		}
	}
	if rollbacks != 1 || rel.Status.Failure.Attempts != 1 {
		t.Fatalf("runs %+v, failure %+v; want exactly one rollback and no second attempt", rel.Status.Runs, rel.Status.Failure)
	}
	svc := h.serviceLivePort(t, ns, "web")
	if svc != 80 {
		t.Fatalf("Service web serves port %d after the rollback; want revision 1's 80", svc)
	}
}
