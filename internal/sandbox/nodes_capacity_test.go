package sandbox_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/internal/sandbox"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// Up with Nodes 3 starts three Ready nodes, each at 127.0.0.1 only and
// with room for at least 1,000 pods.
func TestUpStartsNodesWithRoomForAThousandPods(t *testing.T) {
	sb := openExtra(t, func(o *sandbox.Options) { o.Nodes = 3 })
	info := up(t, sb)
	want := []string{sandbox.NodeName(0), sandbox.NodeName(1), sandbox.NodeName(2)}
	if diff := cmp.Diff(want, info.Nodes); diff != "" {
		t.Fatalf("Up(Nodes: 3) started other nodes (-want +got):\n%s", diff)
	}
	cluster, err := sandboxtest.Connect(info.Kubeconfig, info.Context)
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := cluster.Clientset.CoreV1().Nodes().List(t.Context(), metav1.ListOptions{})
	if err != nil || len(nodes.Items) != 3 {
		t.Fatalf("list nodes = %d, %v; want 3", len(nodes.Items), err)
	}
	for i := range nodes.Items {
		n := &nodes.Items[i]
		if bad := nonLoopback(n); len(bad) > 0 || len(n.Status.Addresses) == 0 {
			t.Errorf("Node/%s addresses %v; want only %s", n.Name, n.Status.Addresses, sandbox.LoopbackIP)
		}
		if pods := n.Status.Allocatable[corev1.ResourcePods]; pods.Value() < 1000 {
			t.Errorf("Node/%s takes %s pods; want at least 1000", n.Name, pods.String())
		}
		if !sandbox.NodeSchedulable(n) {
			t.Errorf("Node/%s is not schedulable", n.Name)
		}
	}
}
