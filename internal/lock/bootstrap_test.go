package lock

import (
	"context"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

func TestBootstrap(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	cs := fastClient(t, sb.RESTConfig)
	tests := []struct {
		name string
		run  func(t *testing.T, cs kubernetes.Interface, ns string)
	}{
		{"a second bootstrap acquirer is refused naming the first", testBootstrapRefused},
		{"the namespace's Lease is refused while another holds the bootstrap one", testLeaseRefusedWhileBootstrapped},
		{"the bootstrap holder takes the namespace's Lease, then lets the bootstrap one go", testBootstrapThenLease},
		{"the bootstrap lease of a missing namespace is taken", testBootstrapMissingNamespace},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.run(t, cs, sb.Namespace(t))
		})
	}
}

func testBootstrapRefused(t *testing.T, cs kubernetes.Interface, ns string) {
	first := mustBootstrap(t, cs, ns, CurrentHolder("run-a"))
	defer first.Release(context.Background())
	_, err := Bootstrap(t.Context(), cs, ns, release, CurrentHolder("run-b"), LeaseOptions{})
	held := wantHeld(t, err)
	if held.Holder.Run != "run-a" {
		t.Errorf("refusal names %v, want the holder of run-a", held.Holder)
	}
	if want := "lease kube-system/piceli-release-shop." + ns; held.Where != want {
		t.Errorf("HeldError.Where = %q, want %q", held.Where, want)
	}
}

func testLeaseRefusedWhileBootstrapped(t *testing.T, cs kubernetes.Interface, ns string) {
	first := mustBootstrap(t, cs, ns, CurrentHolder("run-a"))
	defer first.Release(context.Background())
	_, err := Lease(t.Context(), cs, ns, release, CurrentHolder("run-b"), LeaseOptions{})
	if held := wantHeld(t, err); held.Holder.Run != "run-a" {
		t.Errorf("refusal names %v, want the bootstrap holder run-a", held.Holder)
	}
	if _, err := cs.CoordinationV1().Leases(ns).Get(t.Context(), leasePrefix+release, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get the namespace's Lease after the refusal = %v, want NotFound", err)
	}
}

func testBootstrapThenLease(t *testing.T, cs kubernetes.Interface, ns string) {
	h := CurrentHolder("run-a")
	boot := mustBootstrap(t, cs, ns, h)
	l := mustLease(t, t.Context(), cs, ns, h, LeaseOptions{})
	defer l.Release(context.Background())
	if err := boot.Release(t.Context()); err != nil {
		t.Fatalf("Release(bootstrap) = %v", err)
	}
	if _, err := cs.CoordinationV1().Leases(BootstrapNamespace).Get(t.Context(), leasePrefix+release+"."+ns, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get the bootstrap Lease after its Release = %v, want NotFound", err)
	}
	if _, err := Lease(t.Context(), cs, ns, release, CurrentHolder("run-b"), LeaseOptions{}); err == nil {
		t.Errorf("Lease(run-b) while run-a holds the namespace's Lease succeeded")
	}
}

func testBootstrapMissingNamespace(t *testing.T, cs kubernetes.Interface, ns string) {
	missing := ns + "-new"
	first := mustBootstrap(t, cs, missing, CurrentHolder("run-a"))
	defer first.Release(context.Background())
	if got := leaseHolderIn(t, cs, BootstrapNamespace, leasePrefix+release+"."+missing); got.Run != "run-a" {
		t.Errorf("bootstrap lease held by %v, want run-a", got)
	}
}

func mustBootstrap(t *testing.T, cs kubernetes.Interface, ns string, h Holder) *LeaseLock {
	t.Helper()
	l, err := Bootstrap(t.Context(), cs, ns, release, h, LeaseOptions{})
	if err != nil {
		t.Fatalf("Bootstrap(%s, %s, %v) = %v", ns, release, h, err)
	}
	t.Cleanup(func() { // a failed test must not leave a Lease in kube-system
		cs.CoordinationV1().Leases(BootstrapNamespace).Delete(context.Background(), leasePrefix+release+"."+ns, metav1.DeleteOptions{})
	})
	return l
}

func leaseHolderIn(t *testing.T, cs kubernetes.Interface, ns, name string) Holder {
	t.Helper()
	got, err := cs.CoordinationV1().Leases(ns).Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get lease %s/%s: %v", ns, name, err)
	}
	return holderOf(got)
}
