package lock

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

const release = "shop"

func TestLease(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	cs := fastClient(t, sb.RESTConfig)
	tests := []struct {
		name string
		run  func(t *testing.T, cs kubernetes.Interface, ns string)
	}{
		{"a second acquirer is refused naming the first", testLeaseRefused},
		{"after Release another holder acquires it", testLeaseAfterRelease},
		{"an expired lease is taken over after expiry", testLeaseExpired},
		{"a lease of a dead process on this host is taken over at once", testLeaseDeadPID},
		{"Lost fires when another process deletes the lease", testLeaseLost},
		{"of two racing acquirers exactly one wins", testLeaseRace},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.run(t, cs, sb.Namespace(t))
		})
	}
	t.Run("a missing namespace gives ErrNoNamespace", func(t *testing.T) {
		t.Parallel()
		_, err := Lease(t.Context(), cs, "piceli-no-such-namespace", release, CurrentHolder("a"), LeaseOptions{})
		if !errors.Is(err, ErrNoNamespace) {
			t.Errorf("Lease(missing namespace) = %v, want ErrNoNamespace", err)
		}
	})
}

func testLeaseRefused(t *testing.T, cs kubernetes.Interface, ns string) {
	first := mustLease(t, t.Context(), cs, ns, CurrentHolder("run-a"), LeaseOptions{})
	defer first.Release(context.Background())
	_, err := Lease(t.Context(), cs, ns, release, CurrentHolder("run-b"), LeaseOptions{})
	held := wantHeld(t, err)
	if held.Holder.Run != "run-a" {
		t.Errorf("refusal names %v, want the holder of run-a", held.Holder)
	}
	if want := "lease " + ns + "/piceli-release-shop"; held.Where != want {
		t.Errorf("HeldError.Where = %q, want %q", held.Where, want)
	}
	if !strings.Contains(err.Error(), "pid") || !strings.Contains(err.Error(), "(run run-a)") {
		t.Errorf("error %q does not name the holder's pid and run", err)
	}
}

func testLeaseAfterRelease(t *testing.T, cs kubernetes.Interface, ns string) {
	first := mustLease(t, t.Context(), cs, ns, CurrentHolder("run-a"), LeaseOptions{})
	if err := first.Release(t.Context()); err != nil {
		t.Fatalf("Release() = %v", err)
	}
	second := mustLease(t, t.Context(), cs, ns, CurrentHolder("run-b"), LeaseOptions{})
	defer second.Release(context.Background())
	if got := leaseHolder(t, cs, ns); got.Run != "run-b" {
		t.Errorf("lease held by %v after Release and acquire, want run-b", got)
	}
}

func testLeaseExpired(t *testing.T, cs kubernetes.Interface, ns string) {
	ctx, stopRenewing := context.WithCancel(t.Context())
	first := mustLease(t, ctx, cs, ns, CurrentHolder("run-a"), LeaseOptions{Duration: 2 * time.Second})
	stopRenewing()
	_, err := Lease(t.Context(), cs, ns, release, CurrentHolder("run-b"), LeaseOptions{})
	wantHeld(t, err)
	var second *LeaseLock
	eventually(t, 5*time.Second, func() bool {
		second, err = Lease(t.Context(), cs, ns, release, CurrentHolder("run-b"), LeaseOptions{})
		return err == nil
	})
	defer second.Release(context.Background())
	if err := first.Release(t.Context()); err != nil {
		t.Errorf("Release() by the expired holder = %v, want nil", err)
	}
	if got := leaseHolder(t, cs, ns); got.Run != "run-b" {
		t.Errorf("after the expired holder's Release the lease is held by %v, want run-b still", got)
	}
}

func testLeaseDeadPID(t *testing.T, cs kubernetes.Interface, ns string) {
	dead := CurrentHolder("run-dead")
	dead.PID = deadPID(t)
	ctx, kill := context.WithCancel(t.Context())
	mustLease(t, ctx, cs, ns, dead, LeaseOptions{})
	kill()
	second := mustLease(t, t.Context(), cs, ns, CurrentHolder("run-b"), LeaseOptions{})
	defer second.Release(context.Background())
	if got := leaseHolder(t, cs, ns); got.Run != "run-b" {
		t.Errorf("lease held by %v, want run-b", got)
	}
}

func testLeaseLost(t *testing.T, cs kubernetes.Interface, ns string) {
	l := mustLease(t, t.Context(), cs, ns, CurrentHolder("run-a"), LeaseOptions{Duration: 3 * time.Second})
	defer l.Release(context.Background())
	if err := cs.CoordinationV1().Leases(ns).Delete(t.Context(), leasePrefix+release, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-l.Lost():
	case <-time.After(5 * time.Second):
		t.Fatal("Lost() did not fire within 5s of the lease being deleted")
	}
	if err := l.Err(); err == nil || !strings.Contains(err.Error(), "deleted") {
		t.Errorf("Err() = %v, want it to say the lease was deleted", err)
	}
}

func testLeaseRace(t *testing.T, cs kubernetes.Interface, ns string) {
	const n = 5
	errs := make([]error, n)
	locks := make([]*LeaseLock, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			locks[i], errs[i] = Lease(t.Context(), cs, ns, release, CurrentHolder("run-"+string(rune('a'+i))), LeaseOptions{})
		})
	}
	wg.Wait()
	won := 0
	for i, err := range errs {
		switch {
		case err == nil:
			won++
			defer locks[i].Release(context.Background())
		case !errors.Is(err, ErrHeld):
			t.Errorf("acquirer %d: %v, want the lease or ErrHeld", i, err)
		}
	}
	if won != 1 {
		t.Errorf("%d of %d racing acquirers won, want 1", won, n)
	}
}

// fastClient is a clientset without the default client-side throttling,
// which would slow the parallel subtests down to seconds each.
func fastClient(t *testing.T, cfg *rest.Config) kubernetes.Interface {
	t.Helper()
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = 100, 200
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func mustLease(t *testing.T, ctx context.Context, cs kubernetes.Interface, ns string, h Holder, opts LeaseOptions) *LeaseLock {
	t.Helper()
	l, err := Lease(ctx, cs, ns, release, h, opts)
	if err != nil {
		t.Fatalf("Lease(%s, %s, %v) = %v", ns, release, h, err)
	}
	return l
}

func wantHeld(t *testing.T, err error) *HeldError {
	t.Helper()
	var held *HeldError
	if !errors.As(err, &held) || !errors.Is(err, ErrHeld) {
		t.Fatalf("Lease() = %v, want a *HeldError", err)
	}
	return held
}

func leaseHolder(t *testing.T, cs kubernetes.Interface, ns string) Holder {
	t.Helper()
	got, err := cs.CoordinationV1().Leases(ns).Get(t.Context(), leasePrefix+release, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get lease: %v", err)
	}
	return holderOf(got)
}

// eventually polls cond until it holds, failing the test after d.
func eventually(t *testing.T, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.After(d)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-deadline:
			t.Fatalf("condition not met within %s", d)
		case <-tick.C:
		}
	}
}
