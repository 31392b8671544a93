package access

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// Kind says what a Request forwards to. Its values are stable: they are
// saved in forward preferences.
type Kind string

// The kinds a forward can go to.
const (
	// KindService forwards Service ports to a ready pod the Service
	// selects (the zero Kind means this).
	KindService Kind = "Service"
	// KindDeployment forwards container ports of a ready pod the
	// Deployment selects.
	KindDeployment Kind = "Deployment"
	// KindPod forwards container ports of one pod, while it is ready.
	KindPod Kind = "Pod"
)

// backend is where a forward's pod comes from, read afresh on every dial.
type backend struct {
	svc      *corev1.Service // KindService
	selector string          // KindDeployment
	pod      string          // KindPod
	what     string          // Kind/namespace/name, for messages
}

// readBackend reads what r forwards to and checks that it can: a Service
// selects pods and has the ports, a Deployment has a selector.
func readBackend(ctx context.Context, cs kubernetes.Interface, r Request, ports []int32) (*backend, error) {
	b := &backend{what: fmt.Sprintf("%s/%s/%s", r.kind(), r.Namespace, r.Service)}
	switch r.kind() {
	case KindService:
		svc, err := readService(ctx, cs, r.Namespace, r.Service, ports)
		b.svc = svc
		return b, err
	case KindDeployment:
		d, err := cs.AppsV1().Deployments(r.Namespace).Get(ctx, r.Service, metav1.GetOptions{})
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", b.what, err)
		}
		sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
		if err != nil || sel.Empty() {
			return nil, fmt.Errorf("%s has no usable pod selector", b.what)
		}
		b.selector = sel.String()
		return b, nil
	case KindPod:
		b.pod = r.Service
		return b, nil
	}
	return nil, fmt.Errorf("forward to %s: kind %q is not Service, Deployment or Pod", b.what, r.Kind)
}

// choose returns the ready pod to forward to, other than avoid when
// another is ready.
func (b *backend) choose(ctx context.Context, cs kubernetes.Interface, namespace, avoid string) (*corev1.Pod, error) {
	switch {
	case b.svc != nil:
		return choosePod(ctx, cs, b.svc, avoid)
	case b.selector != "":
		return chooseSelected(ctx, cs, namespace, b.selector, b.what, avoid)
	}
	pod, err := cs.CoreV1().Pods(namespace).Get(ctx, b.pod, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", b.what, err)
	}
	if !PodReady(pod) {
		return nil, fmt.Errorf("%s: %w", b.what, errNoReadyPod)
	}
	return pod, nil
}

// targetPort is the port of pod that port n of the forward reaches: a
// Service port translated to its target, else the container port itself.
func (b *backend) targetPort(pod *corev1.Pod, n int32) (int32, error) {
	if b.svc == nil {
		return n, nil
	}
	return containerPort(pod, servicePort(b.svc, n))
}
