package lock

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// A stop asked through the cluster reaches the holding of the run it
// names and no other: not a holder of another run, not a Lease nobody
// holds, and not the next holding of the same run, which starts clean.
// The request survives the holder's renewals.
func TestStopRequestThroughTheLease(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	cs := fastClient(t, sb.RESTConfig)
	ns := sb.Namespace(t)

	if _, err := RequestStop(t.Context(), cs, ns, release, "run-a", "bob@elsewhere"); !errors.Is(err, ErrNotHeldForRun) {
		t.Fatalf("RequestStop() without a Lease = %v, want ErrNotHeldForRun", err)
	}
	l := mustLease(t, t.Context(), cs, ns, CurrentHolder("run-a"), LeaseOptions{Duration: 3 * time.Second})
	if h, ok, err := LeaseHolder(t.Context(), cs, ns, release); err != nil || !ok || h.Run != "run-a" {
		t.Fatalf("LeaseHolder() = %v, %v, %v; want the live holder of run-a", h, ok, err)
	}
	if asked, err := l.StopRequested(t.Context()); err != nil || asked {
		t.Fatalf("StopRequested() before any request = %v, %v", asked, err)
	}
	if _, err := RequestStop(t.Context(), cs, ns, release, "run-b", "bob@elsewhere"); !errors.Is(err, ErrNotHeldForRun) {
		t.Errorf("RequestStop(another run) = %v, want ErrNotHeldForRun", err)
	}
	h, err := RequestStop(t.Context(), cs, ns, release, "run-a", "bob@elsewhere")
	if err != nil || h.Run != "run-a" {
		t.Fatalf("RequestStop(run-a) = %v, %v", h, err)
	}
	time.Sleep(2500 * time.Millisecond) // two renewals (every second) write the Lease again
	if asked, err := l.StopRequested(t.Context()); err != nil || !asked {
		t.Errorf("StopRequested() after the request and two renewals = %v, %v; want true", asked, err)
	}
	if err := l.Release(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := LeaseHolder(t.Context(), cs, ns, release); err != nil || ok {
		t.Errorf("LeaseHolder() after Release = %v, %v; want no live holder", ok, err)
	}
	next := mustLease(t, t.Context(), cs, ns, CurrentHolder("run-a"), LeaseOptions{})
	defer next.Release(context.Background())
	if asked, err := next.StopRequested(t.Context()); err != nil || asked {
		t.Errorf("StopRequested() of the next holding of run-a = %v, %v; want false", asked, err)
	}
}

// A holding released right after a stop request (before a renewal read
// the Lease again) still deletes its Lease: the request's write must not
// leave the ended holding live until the Lease expires.
func TestReleaseRightAfterAStopRequestDropsTheLease(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	cs := fastClient(t, sb.RESTConfig)
	ns := sb.Namespace(t)
	l := mustLease(t, t.Context(), cs, ns, CurrentHolder("run-a"), LeaseOptions{Duration: 30 * time.Second})
	if _, err := RequestStop(t.Context(), cs, ns, release, "run-a", "bob@elsewhere"); err != nil {
		t.Fatal(err)
	}
	if err := l.Release(context.Background()); err != nil {
		t.Fatal(err)
	}
	if h, ok, err := LeaseHolder(t.Context(), cs, ns, release); err != nil || ok {
		t.Errorf("LeaseHolder() after Release = %v, %v, %v; want no live holder", h, ok, err)
	}
}
