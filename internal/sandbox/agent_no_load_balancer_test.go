package sandbox_test

import (
	"context"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/internal/sandbox"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// A sandbox started with NoLoadBalancer still binds claims, but its
// LoadBalancer Services get no address, as on a cluster without a
// load-balancer controller.
func TestNoLoadBalancerLeavesServicesWithoutAddress(t *testing.T) {
	sb := openExtra(t, func(o *sandbox.Options) { o.NoLoadBalancer = true })
	info := up(t, sb)
	if !slices.Contains(componentNames(status(t, sb)), sandbox.AgentName) {
		t.Fatalf("components of a NoLoadBalancer sandbox lack %s: storage needs it", sandbox.AgentName)
	}
	cluster, err := sandboxtest.Connect(info.Kubeconfig, info.Context)
	if err != nil {
		t.Fatal(err)
	}
	ns := cluster.Namespace(t)
	services := cluster.Clientset.CoreV1().Services(ns)
	if _, err := services.Create(t.Context(), loadBalancerService("web"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	claims := cluster.Clientset.CoreV1().PersistentVolumeClaims(ns)
	if _, err := claims.Create(t.Context(), claim("data", "1Gi"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// The claim, created after the Service, binds: the agent runs and has
	// seen both. A second later the Service still has no address.
	sandboxtest.Eventually(t, time.Minute, "PersistentVolumeClaim/"+ns+"/data Bound", func(ctx context.Context) (bool, error) {
		c, err := claims.Get(ctx, "data", metav1.GetOptions{})
		return err == nil && c.Status.Phase == corev1.ClaimBound, err
	})
	time.Sleep(time.Second)
	web, err := services.Get(t.Context(), "web", metav1.GetOptions{})
	if err != nil || len(web.Status.LoadBalancer.Ingress) != 0 {
		t.Fatalf("Service/%s/web ingress = %+v, %v; want none on a NoLoadBalancer sandbox", ns, web.Status.LoadBalancer.Ingress, err)
	}
}

func claim(name, size string) *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceStorage: resource.MustParse(size),
			}},
		},
	}
}

func componentNames(st sandbox.Status) []string {
	var names []string
	for _, c := range st.Components {
		names = append(names, c.Name)
	}
	return names
}
