package artifact

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/tools/portforward"
	"k8s.io/client-go/transport/spdy"

	"github.com/pynenc/piceli/internal/kube"
)

// forwardTarget is "service/NAME:PORT" or "pod/NAME:PORT" parsed.
type forwardTarget struct {
	kind, name string
	port       int
}

func parseForward(s string) (forwardTarget, error) {
	kindName, portText, ok := strings.Cut(s, ":")
	kind, name, ok2 := strings.Cut(kindName, "/")
	port, err := strconv.Atoi(portText)
	if !ok || !ok2 || err != nil || port < 1 || port > 65535 || name == "" || (kind != "service" && kind != "pod") {
		return forwardTarget{}, fmt.Errorf("port-forward target %q: want service/NAME:PORT or pod/NAME:PORT", s)
	}
	return forwardTarget{kind: kind, name: name, port: port}, nil
}

// startForward port-forwards t through the API server of the named
// kubeconfig and context to a free port on 127.0.0.1. It returns that
// address and a function that ends the forward.
func startForward(ctx context.Context, o RegistryOptions, t forwardTarget, log io.Writer) (string, func(), error) {
	c, err := kube.Connect(ctx, kube.Options{Kubeconfig: o.Kubeconfig, Context: o.Context, AllowExec: o.AllowExec})
	if err != nil {
		return "", nil, err
	}
	fmt.Fprintln(log, c.Using())
	pod, port, err := forwardPod(ctx, c, o.Namespace, t)
	if err != nil {
		return "", nil, err
	}
	transport, upgrader, err := spdy.RoundTripperFor(c.Config)
	if err != nil {
		return "", nil, err
	}
	url := c.Clientset.CoreV1().RESTClient().Post().Resource("pods").Namespace(o.Namespace).Name(pod).SubResource("portforward").URL()
	dialer := spdy.NewDialer(upgrader, &http.Client{Transport: transport}, http.MethodPost, url)
	stop, ready := make(chan struct{}), make(chan struct{})
	fw, err := portforward.NewOnAddresses(dialer, []string{"127.0.0.1"}, []string{fmt.Sprintf("0:%d", port)}, stop, ready, io.Discard, io.Discard)
	if err != nil {
		return "", nil, err
	}
	errc := make(chan error, 1)
	go func() { errc <- fw.ForwardPorts() }()
	end := func() { close(stop); <-errc }
	select {
	case <-ready:
	case err := <-errc:
		return "", nil, fmt.Errorf("port-forward Pod/%s/%s:%d: %w", o.Namespace, pod, port, err)
	case <-ctx.Done():
		end()
		return "", nil, ctx.Err()
	case <-time.After(30 * time.Second):
		end()
		return "", nil, fmt.Errorf("port-forward Pod/%s/%s:%d: not ready after 30s", o.Namespace, pod, port)
	}
	ports, err := fw.GetPorts()
	if err != nil || len(ports) != 1 {
		end()
		return "", nil, fmt.Errorf("port-forward Pod/%s/%s: no local port (%v)", o.Namespace, pod, err)
	}
	fmt.Fprintf(log, "forwarding 127.0.0.1:%d to Pod/%s/%s:%d\n", ports[0].Local, o.Namespace, pod, port)
	return fmt.Sprintf("127.0.0.1:%d", ports[0].Local), end, nil
}

// forwardPod finds the pod and container port behind t: for a service,
// the first running pod (by name) its selector matches, and the target
// port of its port t.port.
func forwardPod(ctx context.Context, c *kube.Client, ns string, t forwardTarget) (string, int, error) {
	if t.kind == "pod" {
		return t.name, t.port, nil
	}
	svc, err := c.Clientset.CoreV1().Services(ns).Get(ctx, t.name, metav1.GetOptions{})
	if err != nil {
		return "", 0, fmt.Errorf("get Service/%s/%s: %w", ns, t.name, err)
	}
	i := slices.IndexFunc(svc.Spec.Ports, func(p corev1.ServicePort) bool { return int(p.Port) == t.port })
	if i < 0 || len(svc.Spec.Selector) == 0 {
		return "", 0, fmt.Errorf("Service/%s/%s has no port %d with a pod selector", ns, t.name, t.port)
	}
	pods, err := c.Clientset.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: labels.SelectorFromSet(svc.Spec.Selector).String()})
	if err != nil {
		return "", 0, fmt.Errorf("list pods of Service/%s/%s: %w", ns, t.name, err)
	}
	slices.SortFunc(pods.Items, func(a, b corev1.Pod) int { return strings.Compare(a.Name, b.Name) })
	for _, p := range pods.Items {
		if p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil {
			return p.Name, containerPort(&p, svc.Spec.Ports[i].TargetPort, t.port), nil
		}
	}
	return "", 0, fmt.Errorf("Service/%s/%s has no running pod to forward to", ns, t.name)
}

// containerPort resolves a Service target port (a number or a container
// port's name) in pod; an unset target port means the service port.
func containerPort(pod *corev1.Pod, target intstr.IntOrString, port int) int {
	if target.Type == intstr.Int {
		if target.IntVal == 0 {
			return port
		}
		return int(target.IntVal)
	}
	for _, c := range pod.Spec.Containers {
		for _, p := range c.Ports {
			if p.Name == target.StrVal {
				return int(p.ContainerPort)
			}
		}
	}
	return port
}
