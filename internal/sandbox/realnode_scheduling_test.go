package sandbox_test

import (
	"context"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/internal/sandbox"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// With a real node, workloads run there: fake nodes carry a taint that only
// pods tolerating it pass, and such a pod still runs on a fake node. kwok
// leaves the real node to its kubelet.
func TestRealNodeTaintsFakeNodes(t *testing.T) {
	r := upRealNode(t, openRealNode(t, 1))
	r.loadNodeApp(t)
	fake, err := r.api.Clientset.CoreV1().Nodes().Get(t.Context(), sandbox.NodeName(0), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(fake.Spec.Taints, func(tn corev1.Taint) bool { return tn.MatchTaint(&sandbox.FakeNodeTaint) }) {
		t.Fatalf("Node/%s taints = %v, want %v", fake.Name, fake.Spec.Taints, sandbox.FakeNodeTaint)
	}
	realNode, err := r.api.Clientset.CoreV1().Nodes().Get(t.Context(), sandbox.RealNodeName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range realNode.ManagedFields {
		if f.Manager == "kwok-controller" {
			t.Errorf("kwok wrote Node/%s (%s %s); it must leave the real node to its kubelet", realNode.Name, f.Operation, f.Subresource)
		}
	}

	ns := runNodeApp(t, r, 3)
	for _, p := range podsOf(t, r.api, ns, "web") {
		if p.Spec.NodeName != sandbox.RealNodeName {
			t.Errorf("Pod/%s/%s without the toleration is on %q, want %s", ns, p.Name, p.Spec.NodeName, sandbox.RealNodeName)
		}
	}

	tolerant := nodeAppPod("tolerant", corev1.PullNever, sandboxtest.NodeAppRef, "serve", ":8080")
	tolerant.Spec.Tolerations = []corev1.Toleration{{Key: sandbox.FakeNodeTaint.Key, Value: sandbox.FakeNodeTaint.Value,
		Effect: sandbox.FakeNodeTaint.Effect, Operator: corev1.TolerationOpEqual}}
	tolerant.Spec.NodeSelector = map[string]string{"kubernetes.io/hostname": fake.Name}
	pods := r.api.Clientset.CoreV1().Pods(ns)
	if _, err := pods.Create(t.Context(), tolerant, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	sandboxtest.Eventually(t, time.Minute, "Pod/"+ns+"/tolerant Running on "+fake.Name, func(ctx context.Context) (bool, error) {
		p, err := pods.Get(ctx, "tolerant", metav1.GetOptions{})
		return err == nil && p.Spec.NodeName == fake.Name && p.Status.Phase == corev1.PodRunning && statusWrittenBy(*p, "kwok-controller"), err
	})
}
