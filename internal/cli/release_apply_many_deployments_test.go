package cli

import (
	"context"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/internal/plan"
)

// manyDeployments is how many one-replica Deployments the capacity test
// applies: more than the 110 pods a default node takes.
const manyDeployments = 300

// A release of 300 one-replica Deployments becomes ready on the one-node
// sandbox: every pod is scheduled there and Running.
func TestApplyManyDeploymentsOnOneNode(t *testing.T) {
	t.Parallel()
	sb := appsSandbox(t)
	nodes, err := sb.Clientset.CoreV1().Nodes().List(t.Context(), metav1.ListOptions{})
	if err != nil || len(nodes.Items) != 1 {
		t.Fatalf("the app tests' sandbox has %d nodes (%v); want one", len(nodes.Items), err)
	}
	manifests := map[string]string{}
	for i := range manyDeployments {
		name := fmt.Sprintf("app-%03d", i)
		manifests[name+".yaml"] = deploymentYAML(name, 1, "")
	}
	r := newRelease(t, sb, "ready_timeout = \"5m\"\n", manifests)
	start := time.Now()
	p := r.plan(t)
	t.Logf("plan of %d Deployments took %s", manyDeployments, time.Since(start).Round(100*time.Millisecond))
	if n := p.Counts()[plan.Create]; n != manyDeployments {
		t.Fatalf("plan creates %d objects, want %d Deployments", n, manyDeployments)
	}
	start = time.Now()
	r.apply(t, p)
	t.Logf("apply of %d one-replica Deployments, until all were ready, took %s", manyDeployments, time.Since(start).Round(100*time.Millisecond))
	r.assertAllCurrent(t, p)

	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	pods, err := sb.Clientset.CoreV1().Pods(r.ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	running := 0
	for _, pod := range pods.Items {
		if pod.Spec.NodeName == nodes.Items[0].Name && pod.Status.Phase == "Running" {
			running++
		}
	}
	if running != manyDeployments {
		t.Errorf("%d pods Running on %s; want %d", running, nodes.Items[0].Name, manyDeployments)
	}
}
