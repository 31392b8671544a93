package sandbox_test

import (
	"fmt"
	"net/netip"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/internal/sandbox"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// The sandbox holds thousands of Services: each gets a ClusterIP from
// sandbox.ServiceRange (kube-apiserver's default range is full after 254).
func TestSandboxHoldsTwoThousandServices(t *testing.T) {
	const services, workers = 2000, 16
	sb := sandboxtest.Cluster(t)
	ns := sb.Namespace(t)
	svcs := sb.Clientset.CoreV1().Services(ns)
	rng := netip.MustParsePrefix(sandbox.ServiceRange)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		errs  []error
		seen  = map[string]bool{}
		names = make(chan int)
	)
	for range workers {
		wg.Go(func() {
			for i := range names {
				svc := &corev1.Service{
					ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("svc-%04d", i)},
					Spec: corev1.ServiceSpec{
						Selector: map[string]string{"app": "none"},
						Ports:    []corev1.ServicePort{{Port: 80}},
					},
				}
				got, err := svcs.Create(t.Context(), svc, metav1.CreateOptions{})
				mu.Lock()
				switch {
				case err != nil:
					errs = append(errs, fmt.Errorf("create Service/%s/%s: %w", ns, svc.Name, err))
				case seen[got.Spec.ClusterIP]:
					errs = append(errs, fmt.Errorf("Service/%s/%s got ClusterIP %s twice", ns, svc.Name, got.Spec.ClusterIP))
				default:
					seen[got.Spec.ClusterIP] = true
					if ip, perr := netip.ParseAddr(got.Spec.ClusterIP); perr != nil || !rng.Contains(ip) {
						errs = append(errs, fmt.Errorf("Service/%s/%s got ClusterIP %q outside %s", ns, svc.Name, got.Spec.ClusterIP, rng))
					}
				}
				mu.Unlock()
			}
		})
	}
	for i := range services {
		names <- i
	}
	close(names)
	wg.Wait()
	if len(errs) > 0 {
		t.Fatalf("%d of %d Services failed; first: %v", len(errs), services, errs[0])
	}
	if len(seen) != services {
		t.Fatalf("%d distinct ClusterIPs, want %d", len(seen), services)
	}
}
