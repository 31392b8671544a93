package readiness_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/pynenc/piceli/internal/readiness"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// A claim of a StorageClass the cluster lacks and a LoadBalancer Service
// of a class no controller serves never become ready, whatever storage
// and load-balancer components the sandbox runs: the wait times out and
// says, for each, what the cluster did not do.
func TestWaitExplainsUnboundClaimsAndAddresslessLoadBalancers(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	ns := sb.Namespace(t)
	ctx := testContext(t)
	absent := "piceli-test-absent"
	pvc := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "data"},
		Spec: corev1.PersistentVolumeClaimSpec{
			StorageClassName: &absent,
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
		},
	}
	if _, err := sb.Clientset.CoreV1().PersistentVolumeClaims(ns).Create(ctx, pvc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	class := "piceli.dev/no-such-controller"
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "lb"},
		Spec: corev1.ServiceSpec{
			Type: corev1.ServiceTypeLoadBalancer, LoadBalancerClass: &class,
			Ports: []corev1.ServicePort{{Port: 80}},
		},
	}
	if _, err := sb.Clientset.CoreV1().Services(ns).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	targets := []readiness.Target{
		{GVR: schema.GroupVersionResource{Version: "v1", Resource: "persistentvolumeclaims"}, Kind: "PersistentVolumeClaim", Namespace: ns, Name: "data"},
		{GVR: schema.GroupVersionResource{Version: "v1", Resource: "services"}, Kind: "Service", Namespace: ns, Name: "lb"},
	}

	_, err := readiness.Wait(ctx, sb.Dynamic, targets, readiness.WaitOptions{Interval: 250 * time.Millisecond, Timeout: 3 * time.Second})
	var nr *readiness.NotReadyError
	if !errors.As(err, &nr) || !errors.Is(err, readiness.ErrTimeout) {
		t.Fatalf("Wait() = %v, want a *NotReadyError that timed out", err)
	}
	t.Logf("Wait() error:\n%v", err)
	for _, want := range []string{
		"PersistentVolumeClaim/" + ns + "/data in-progress",
		`no provisioner bound the claim: its StorageClass "piceli-test-absent" does not exist (the cluster has `,
		"Service/" + ns + "/lb in-progress: waiting for a load balancer ingress address",
		`no load-balancer address was assigned: no controller of load-balancer class "piceli.dev/no-such-controller" set status.loadBalancer.ingress`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Wait() error =\n%v\nwant it to contain %q", err, want)
		}
	}
}
