package readiness_test

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/pynenc/piceli/internal/readiness"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// A Deployment with 2 replicas, with its Namespace, becomes current through
// Wait, which reports progress while it waits.
func TestWaitDeploymentBecomesCurrent(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	assertLoopbackNodes(t, sb)
	ns := sb.Namespace(t)
	targets := []readiness.Target{
		{GVR: schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}, Kind: "Namespace", Name: ns},
		createDeployment(t, sb, ns, deployment("web", 2, nil)),
	}
	var polls int
	report, err := readiness.Wait(testContext(t), sb.Dynamic, targets, readiness.WaitOptions{
		Interval: 250 * time.Millisecond, Timeout: 90 * time.Second,
		OnPoll: func(pending []readiness.Target) { polls++ },
	})
	if err != nil {
		t.Fatalf("Wait(Namespace, Deployment with 2 replicas) = %v, want nil", err)
	}
	for _, o := range report.Objects {
		if o.Result.Status != readiness.Current {
			t.Errorf("Wait() reported %s as %+v, want current", o.Ref, o.Result)
		}
	}
	if got, want := report.Objects[1].Ref.String(), "Deployment/"+ns+"/web"; got != want {
		t.Errorf("Wait() Ref = %s, want %s", got, want)
	}
	if polls == 0 {
		t.Errorf("Wait() called OnPoll 0 times; a new Deployment cannot be current at the first poll")
	}
}
