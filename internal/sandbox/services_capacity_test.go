package sandbox_test

import (
	"fmt"
	"net/netip"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/pynenc/piceli/internal/sandbox"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// The sandbox holds thousands of Services: its default ServiceCIDR is
// sandbox.ServiceRange, and 400 Services (kube-apiserver's default range
// is full after 254) each get a distinct ClusterIP from it. (The
// controller benchmark, make bench, creates 2,000; on a loaded 2-core
// machine creating them here takes minutes and deleting them longer.)
func TestSandboxHoldsThousandsOfServices(t *testing.T) {
	const services, workers = 400, 16
	sb := sandboxtest.Cluster(t)
	ns := sb.Namespace(t)
	cfg := rest.CopyConfig(sb.RESTConfig)
	cfg.QPS, cfg.Burst = 1000, 1000 // client-go's default 5 a second would take 400 s
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cidr, err := cs.NetworkingV1().ServiceCIDRs().Get(t.Context(), "kubernetes", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the default ServiceCIDR: %v", err)
	}
	if len(cidr.Spec.CIDRs) != 1 || cidr.Spec.CIDRs[0] != sandbox.ServiceRange {
		t.Fatalf("the default ServiceCIDR holds %v, want [%s]", cidr.Spec.CIDRs, sandbox.ServiceRange)
	}
	svcs := cs.CoreV1().Services(ns)
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
