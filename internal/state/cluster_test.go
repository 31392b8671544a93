package state

import (
	"crypto/rand"
	"errors"
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/pynenc/piceli/internal/lock"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// held takes the release's Lease in ns and returns its fence.
func held(t *testing.T, cs kubernetes.Interface, ns, run string) (*lock.LeaseLock, Fence) {
	t.Helper()
	return heldFor(t, cs, ns, "shop", run)
}

// heldFor takes the Lease of release in ns and returns its fence.
func heldFor(t *testing.T, cs kubernetes.Interface, ns, release, run string) (*lock.LeaseLock, Fence) {
	t.Helper()
	l, err := lock.Lease(t.Context(), cs, ns, release, lock.CurrentHolder(run), lock.LeaseOptions{})
	if err != nil {
		t.Fatalf("lock.Lease: %v", err)
	}
	t.Cleanup(func() { l.Release(t.Context()) })
	n, name, id, tr := l.Fence()
	return l, Fence{Namespace: n, Lease: name, Identity: id, Transitions: tr}
}

func TestClusterState(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	cs, err := kubernetes.NewForConfig(sb.RESTConfig)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		run  func(t *testing.T, cs kubernetes.Interface, ns string)
	}{
		{"a state larger than 3 MiB round-trips through chunks", testLargeRoundTrip},
		{"a deleted chunk is named and the previous snapshot is used", testDeletedChunk},
		{"a writer whose lease was taken over cannot write state", testFencedWriter},
		{"a cache deleted at any time is pulled back whole", testCacheDeleted},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.run(t, cs, sb.Namespace(t))
		})
	}
}

func testLargeRoundTrip(t *testing.T, cs kubernetes.Interface, ns string) {
	a, b := t.TempDir(), t.TempDir()
	for i := range 60 { // 60 revisions of 64 KiB that do not compress: 3.75 MiB
		buf := make([]byte, 64<<10)
		rand.Read(buf)
		write(t, a, fmt.Sprintf("history/%06d.json", i+1), string(buf))
	}
	_, fence := held(t, cs, ns, "big")
	pushed, err := signed(t, &Cluster{Client: cs, Namespace: ns, Release: "shop", Dir: a}).Push(t.Context(), fence)
	if err != nil {
		t.Fatalf("Push: %v", err)
	}
	if pushed.Bytes < 3<<20 || pushed.Chunks < 7 {
		t.Errorf("Push = %+v, want over 3 MiB in at least 7 chunks", pushed)
	}
	if _, err := signed(t, &Cluster{Client: cs, Namespace: ns, Release: "shop", Dir: b}).Pull(t.Context()); err != nil {
		t.Fatalf("Pull: %v", err)
	}
	fa, _ := Files(a)
	fb, _ := Files(b)
	if len(fa) != 60 || Digest(mustPack(t, fa)) != Digest(mustPack(t, fb)) {
		t.Errorf("pulled %d files, want the 60 pushed, byte for byte", len(fb))
	}
}

func mustPack(t *testing.T, files []File) []byte {
	data, err := Pack(files)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func testDeletedChunk(t *testing.T, cs kubernetes.Interface, ns string) {
	a := t.TempDir()
	c := signed(t, &Cluster{Client: cs, Namespace: ns, Release: "shop", Dir: a})
	_, fence := held(t, cs, ns, "torn")
	write(t, a, "history/000001.json", "first")
	if _, err := c.Push(t.Context(), fence); err != nil {
		t.Fatal(err)
	}
	write(t, a, "history/000002.json", "second")
	pushed, err := c.Push(t.Context(), fence)
	if err != nil {
		t.Fatal(err)
	}
	chunk := c.chunkName(pushed.Generation, 0)
	if err := cs.CoreV1().Secrets(ns).Delete(t.Context(), chunk, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	b := t.TempDir()
	got, err := signed(t, &Cluster{Client: cs, Namespace: ns, Release: "shop", Dir: b}).Pull(t.Context())
	if err != nil {
		t.Fatalf("Pull with a deleted chunk: %v", err)
	}
	if want := "chunk Secret/" + ns + "/" + chunk + " is missing"; !strings.Contains(got.Refused, want) || got.Generation != pushed.Generation-1 {
		t.Errorf("Pull = %+v, want generation %d and Refused naming %q", got, pushed.Generation-1, want)
	}
	if read(t, b, "history/000001.json") != "first" || read(t, b, "history/000002.json") != "<missing>" {
		t.Errorf("pulled cache is not the previous complete snapshot")
	}
	// With the previous snapshot torn too, nothing is used and both are named.
	prev := c.chunkName(pushed.Generation-1, 0)
	if err := cs.CoreV1().Secrets(ns).Delete(t.Context(), prev, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err = signed(t, &Cluster{Client: cs, Namespace: ns, Release: "shop", Dir: t.TempDir()}).Pull(t.Context())
	if err == nil || !strings.Contains(err.Error(), chunk) || !strings.Contains(err.Error(), prev) {
		t.Errorf("Pull with both snapshots torn = %v, want an error naming %s and %s", err, chunk, prev)
	}
}

func testFencedWriter(t *testing.T, cs kubernetes.Interface, ns string) {
	a := t.TempDir()
	c := signed(t, &Cluster{Client: cs, Namespace: ns, Release: "shop", Dir: a})
	l, fence := held(t, cs, ns, "first")
	write(t, a, "history/000001.json", "first")
	if _, err := c.Push(t.Context(), fence); err != nil {
		t.Fatal(err)
	}
	// Another holder takes the Lease over, as lock.Lease does from a dead
	// or expired holder: new identity, one more transition.
	_, name, _, _ := l.Fence()
	lease, err := cs.CoordinationV1().Leases(ns).Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	other, next := "someone-else", fence.Transitions+1
	lease.Spec.HolderIdentity, lease.Spec.LeaseTransitions = &other, &next
	if _, err := cs.CoordinationV1().Leases(ns).Update(t.Context(), lease, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	write(t, a, "history/000002.json", "written after losing the lease")
	_, err = c.Push(t.Context(), fence)
	if !errors.Is(err, ErrFenced) || !strings.Contains(err.Error(), `held by "someone-else"`) {
		t.Errorf("Push after takeover = %v, want ErrFenced naming the new holder", err)
	}
	m, _, err := c.readManifest(t.Context())
	if err != nil || m.Current.Generation != 1 {
		t.Errorf("manifest after refused push = %+v, %v; want generation 1 still", m, err)
	}
}

func testCacheDeleted(t *testing.T, cs kubernetes.Interface, ns string) {
	a := t.TempDir()
	_, fence := held(t, cs, ns, "cache")
	write(t, a, "keys/digest", "k")
	c := signed(t, &Cluster{Client: cs, Namespace: ns, Release: "shop", Dir: a})
	if _, err := c.Push(t.Context(), fence); err != nil {
		t.Fatal(err)
	}
	if again, err := c.Push(t.Context(), fence); err != nil || !again.Unchanged {
		t.Errorf("second Push of the same files = %+v, %v; want Unchanged", again, err)
	}
	b := t.TempDir() + "/gone"
	if _, err := signed(t, &Cluster{Client: cs, Namespace: ns, Release: "shop", Dir: b}).Pull(t.Context()); err != nil {
		t.Fatal(err)
	}
	if read(t, b, "keys/digest") != "k" {
		t.Errorf("pulled keys/digest = %q, want k", read(t, b, "keys/digest"))
	}
}
