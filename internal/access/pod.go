package access

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"
)

// errNoReadyPod is returned by choosePod when the Service selects no ready
// pod; waiting may help.
var errNoReadyPod = errors.New("no ready pod")

// readService reads namespace/name and checks that a port-forward can go
// to its pods: it selects them, and it has the ports asked for.
func readService(ctx context.Context, cs kubernetes.Interface, namespace, name string, ports []int32) (*corev1.Service, error) {
	svc, err := cs.CoreV1().Services(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("read Service/%s/%s: %w", namespace, name, err)
	}
	if len(svc.Spec.Selector) == 0 {
		return nil, fmt.Errorf("Service/%s/%s selects no pods (it has no selector), so nothing can be forwarded to it", namespace, name)
	}
	for _, p := range ports {
		if servicePort(svc, p) == nil {
			return nil, fmt.Errorf("Service/%s/%s has no port %d (it has %s)", namespace, name, p, portList(svc))
		}
	}
	return svc, nil
}

// servicePort returns the port of svc numbered port, or nil.
func servicePort(svc *corev1.Service, port int32) *corev1.ServicePort {
	for i := range svc.Spec.Ports {
		if svc.Spec.Ports[i].Port == port {
			return &svc.Spec.Ports[i]
		}
	}
	return nil
}

func portList(svc *corev1.Service) string {
	var out []string
	for _, p := range svc.Spec.Ports {
		out = append(out, fmt.Sprint(p.Port))
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ", ")
}

// choosePod returns the ready pod of svc a forward goes to (see
// chooseSelected).
func choosePod(ctx context.Context, cs kubernetes.Interface, svc *corev1.Service, avoid string) (*corev1.Pod, error) {
	sel := labels.SelectorFromSet(svc.Spec.Selector).String()
	return chooseSelected(ctx, cs, svc.Namespace, sel, "Service/"+svc.Namespace+"/"+svc.Name, avoid)
}

// chooseSelected returns the ready pod of namespace selected by sel a
// forward goes to: the oldest (then first by name) ready pod other than
// avoid, else avoid itself if it is still ready. It fails with
// errNoReadyPod when none is; what names the selecting object.
func chooseSelected(ctx context.Context, cs kubernetes.Interface, namespace, sel, what, avoid string) (*corev1.Pod, error) {
	list, err := cs.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: sel})
	if err != nil {
		return nil, fmt.Errorf("list pods of %s: %w", what, err)
	}
	var ready []*corev1.Pod
	for i := range list.Items {
		if PodReady(&list.Items[i]) {
			ready = append(ready, &list.Items[i])
		}
	}
	slices.SortFunc(ready, func(a, b *corev1.Pod) int {
		if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	for _, p := range ready {
		if p.Name != avoid {
			return p, nil
		}
	}
	if len(ready) > 0 {
		return ready[0], nil
	}
	return nil, fmt.Errorf("%s: %w (selector %s)", what, errNoReadyPod, sel)
}

// PodReady reports whether a pod runs, is Ready and is not being deleted:
// the one test of a pod to forward to or read logs from.
func PodReady(p *corev1.Pod) bool {
	if p.DeletionTimestamp != nil || p.Status.Phase != corev1.PodRunning {
		return false
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// containerPort translates a Service port to the port of pod it targets:
// a number as given, a name looked up among the pod's container ports, or
// the Service port itself when no target port is set.
func containerPort(pod *corev1.Pod, sp *corev1.ServicePort) (int32, error) {
	tp := sp.TargetPort
	switch {
	case tp.IntValue() > 0:
		return int32(tp.IntValue()), nil
	case tp.StrVal == "":
		return sp.Port, nil
	}
	for _, c := range pod.Spec.Containers {
		for _, p := range c.Ports {
			if p.Name == tp.StrVal {
				return p.ContainerPort, nil
			}
		}
	}
	return 0, fmt.Errorf("pod %s has no container port named %q (the target of service port %d)", pod.Name, tp.StrVal, sp.Port)
}
