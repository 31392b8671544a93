package apply

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/progress"
	"github.com/pynenc/piceli/internal/readiness"
)

// loadBalancer returns a rendered LoadBalancer Service of the test
// release; the fake cluster never gives it an ingress address, as a
// cluster without a load-balancer controller does not.
func loadBalancer(name string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1",
		"kind":       "Service",
		"metadata":   map[string]any{"name": name, "namespace": testNamespace, "labels": map[string]any{"piceli.dev/release": "shop"}},
		"spec":       map[string]any{"type": "LoadBalancer", "ports": []any{map[string]any{"port": int64(80)}}},
	}}
}

// A step the plan does not wait for is written in its wave and journaled
// like any other, its wait is reported skipped, and the next wave starts
// without it ever becoming ready.
func TestApplySkipsTheWaitOfStepsThePlanDoesNotWaitFor(t *testing.T) {
	c := newFakeCluster()
	ev := &events{}
	e := newEngine(t, c, Options{ReadyTimeout: 5 * time.Second})
	e.Events = ev.sink()
	lb := createStep(loadBalancer("lb"))
	lb.NoWait = plan.NoWaitAnnotated
	in := inputOf(t, []plan.Step{createStep(configMap("a", "1")), lb}, []plan.Step{createStep(configMap("b", "1"))})

	start := time.Now()
	if _, err := e.Apply(t.Context(), "run-1", in); err != nil {
		t.Fatalf("Apply() = %v, want nil: the only object that never gets ready is not waited for", err)
	}
	if took := time.Since(start); took >= 5*time.Second {
		t.Errorf("Apply() took %s, as long as the readiness timeout: it waited for the Service", took)
	}
	if c.live(resources["Service"], testNamespace, "lb") == nil {
		t.Errorf("Service/shop/lb is not in the cluster: a step not waited for must still be written")
	}
	recs, _ := replayRun(t, e.StateDir, "run-1")
	want := []string{
		"run-started",
		"intent 0 create", "intent 1 create", "outcome 0 applied", "outcome 1 applied", "wave-ready 0",
		"intent 2 create", "outcome 2 applied", "wave-ready 1",
		"run-finished",
	}
	got := story(recs)
	slices.Sort(got[3:5]) // the two outcomes of wave 0 arrive in either order
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("journal (-want +got):\n%s", diff)
	}

	var skipped []progress.Event
	for _, x := range ev.all {
		switch {
		case x.Kind == progress.WaitSkipped:
			skipped = append(skipped, x)
		case x.Kind == progress.Waiting && slices.Contains(x.Names, "lb"):
			t.Errorf("a waiting event names the Service not waited for: %+v", x)
		}
	}
	wantSkipped := []progress.Event{{Kind: progress.WaitSkipped, Wave: 0, Ref: "Service/shop/lb", Action: "create", Message: `annotated piceli.dev/wait: "false"`}}
	if diff := cmp.Diff(wantSkipped, skipped); diff != "" {
		t.Errorf("wait-skipped events (-want +got):\n%s", diff)
	}
}

// A LoadBalancer Service that is waited for and never gets an address
// fails the run when the wave's timeout passes, with an error that names
// it, says why and says how to skip its wait.
func TestApplyTimeoutOnALoadBalancerSaysHowToSkipTheWait(t *testing.T) {
	c := newFakeCluster()
	e := newEngine(t, c, Options{ReadyTimeout: time.Second})
	in := inputOf(t, []plan.Step{createStep(configMap("a", "1")), createStep(loadBalancer("lb"))}, []plan.Step{createStep(configMap("b", "1"))})

	res, err := e.Apply(t.Context(), "run-1", in)
	var nr *readiness.NotReadyError
	if !errors.As(err, &nr) || !errors.Is(err, readiness.ErrTimeout) {
		t.Fatalf("Apply() = %v, want a *readiness.NotReadyError that timed out", err)
	}
	if res.Status != journal.StatusFailed {
		t.Errorf("Apply() status = %s, want failed", res.Status)
	}
	want := "wait for readiness: timed out after 1s:\n" +
		"  Service/shop/lb in-progress: waiting for a load balancer ingress address\n" +
		"    no load-balancer address was assigned: no load-balancer controller set status.loadBalancer.ingress (the cluster may run none)\n" +
		`    to apply without waiting for it, annotate it piceli.dev/wait: "false" (app.NoWait() in a Go composition), or set wait = "none" under [release] in release.toml`
	if err.Error() != want {
		t.Errorf("Apply() error =\n%s\nwant\n%s", err, want)
	}
	if c.configMap("b") != nil {
		t.Errorf("ConfigMap b of the next wave was written although its wave's wait failed")
	}
}
