package sandbox_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/pynenc/piceli/internal/readiness"
	"github.com/pynenc/piceli/internal/sandbox"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

var servicesResource = schema.GroupVersionResource{Version: "v1", Resource: "services"}

// A LoadBalancer Service gets the ingress address 127.0.0.1 and is then
// ready by Piceli's rules; it loses the address when it stops being a
// LoadBalancer. A Service of another load-balancer class is left alone.
func TestLoadBalancerServiceGetsLoopbackAddress(t *testing.T) {
	sb := agentSandbox(t)
	ns := sb.Namespace(t)
	services := sb.Clientset.CoreV1().Services(ns)
	foreign := loadBalancerService("foreign")
	foreign.Spec.LoadBalancerClass = new("example.com/cloud")
	for _, svc := range []*corev1.Service{foreign, loadBalancerService("web")} {
		if _, err := services.Create(t.Context(), svc, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create Service/%s/%s: %v", ns, svc.Name, err)
		}
	}
	sandboxtest.Eventually(t, 30*time.Second, "Service/"+ns+"/web ready", func(ctx context.Context) (bool, error) {
		u, err := sb.Dynamic.Resource(servicesResource).Namespace(ns).Get(ctx, "web", metav1.GetOptions{})
		return err == nil && readiness.Compute(u).Status == readiness.Current, err
	})
	web, err := services.Get(t.Context(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if in := web.Status.LoadBalancer.Ingress; len(in) != 1 || in[0].IP != sandbox.LoopbackIP || in[0].Hostname != "" {
		t.Fatalf("Service/%s/web ingress = %+v; want exactly ip %s", ns, in, sandbox.LoopbackIP)
	}
	// The agent handled "web", created after "foreign": it passed over it.
	if f, err := services.Get(t.Context(), "foreign", metav1.GetOptions{}); err != nil || len(f.Status.LoadBalancer.Ingress) != 0 {
		t.Errorf("Service/%s/foreign (class example.com/cloud) ingress = %+v, %v; want none", ns, f.Status.LoadBalancer.Ingress, err)
	}

	web.Spec.Type = corev1.ServiceTypeClusterIP
	web.Spec.Ports[0].NodePort = 0
	if _, err := services.Update(t.Context(), web, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("make Service/%s/web a ClusterIP Service: %v", ns, err)
	}
	sandboxtest.Eventually(t, 30*time.Second, "Service/"+ns+"/web without an ingress address", func(ctx context.Context) (bool, error) {
		s, err := services.Get(ctx, "web", metav1.GetOptions{})
		return err == nil && len(s.Status.LoadBalancer.Ingress) == 0, err
	})
}

func loadBalancerService(name string) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeLoadBalancer,
			Selector: map[string]string{"app": name},
			Ports:    []corev1.ServicePort{{Port: 80}},
		},
	}
}
