package sandbox

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// Node annotations and taints the sandbox relies on.
const (
	// KwokNodeAnnotation marks a node that the kwok controller fakes.
	KwokNodeAnnotation = "kwok.x-k8s.io/node"
	notReadyTaint      = "node.kubernetes.io/not-ready"
	pollInterval       = 250 * time.Millisecond
)

// NodeName is the name of the i-th fake node of every sandbox.
func NodeName(i int) string { return fmt.Sprintf("kwok-node-%d", i) }

// NodePods is how many pods each fake node takes. Its pods run nothing, so
// CPU, memory and storage are sized to match: a pod's requests never stop
// it from being scheduled before the pod count does.
const NodePods = 1000

// fakeNode is a node kwok manages, reachable only at 127.0.0.1, carrying
// taints.
func fakeNode(name string, taints []corev1.Taint) *corev1.Node {
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:              resource.MustParse("1000"),
		corev1.ResourceMemory:           resource.MustParse("4Ti"),
		corev1.ResourceEphemeralStorage: resource.MustParse("10Ti"),
		corev1.ResourcePods:             *resource.NewQuantity(NodePods, resource.DecimalSI),
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:        name,
			Annotations: map[string]string{KwokNodeAnnotation: "fake", "node.alpha.kubernetes.io/ttl": "0"},
			Labels: map[string]string{
				"kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
				"kubernetes.io/arch": "amd64", "type": "kwok",
			},
		},
		Spec: corev1.NodeSpec{Taints: taints},
		Status: corev1.NodeStatus{
			Capacity:    capacity,
			Allocatable: capacity,
			// Every address is the loopback IP, the Hostname one too: the API
			// server dials the Hostname address first for port-forward and
			// logs, and kwok would otherwise add its own node name there.
			Addresses: []corev1.NodeAddress{
				{Type: corev1.NodeInternalIP, Address: LoopbackIP},
				{Type: corev1.NodeHostName, Address: LoopbackIP},
			},
		},
	}
}

// ensureNodes creates the fake nodes that do not exist yet, with taints.
func ensureNodes(ctx context.Context, cs kubernetes.Interface, count int, taints []corev1.Taint) ([]string, error) {
	names := make([]string, count)
	for i := range names {
		names[i] = NodeName(i)
		_, err := cs.CoreV1().Nodes().Create(ctx, fakeNode(names[i], taints), metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return nil, fmt.Errorf("create Node/%s: %w", names[i], err)
		}
	}
	return names, nil
}

// waitNodesReady polls until every named node is Ready and has lost the
// not-ready taint, so pods can be scheduled on it.
func waitNodesReady(ctx context.Context, cs kubernetes.Interface, names []string) error {
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	for _, name := range names {
		for {
			node, err := cs.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
			if err == nil && NodeSchedulable(node) {
				break
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("wait for Node/%s to be Ready: %w", name, context.Cause(ctx))
			case <-tick.C:
			}
		}
	}
	return nil
}

// NodeSchedulable reports whether node is Ready and free of the not-ready
// taint.
func NodeSchedulable(node *corev1.Node) bool {
	for _, t := range node.Spec.Taints {
		if t.Key == notReadyTaint {
			return false
		}
	}
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
