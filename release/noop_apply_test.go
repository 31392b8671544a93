package release

import (
	"testing"
	"time"

	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// A no-op apply reads the release's objects once, in the approval check
// (one LIST per kind and namespace), and takes their readiness from that
// LIST instead of listing them again after a wave that writes nothing; it
// still records a revision that says nothing changed.
func TestANoOpApplyListsEachKindOnce(t *testing.T) {
	path, ns := configMapRelease(t, 3)
	noop := appliedTwice(t, path)
	var c requests
	r, err := Open(path, Options{wrapTransport: c.wrap})
	if err != nil {
		t.Fatal(err)
	}
	ctx := sandboxtest.Context(t, time.Minute)
	res, err := r.Apply(ctx, noop.Hash, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.count("GET /api/v1/namespaces/" + ns + "/configmaps"); got != 1 {
		t.Errorf("the no-op apply listed the ConfigMaps %d times, want once (the approval check)", got)
	}
	revs, err := r.History(ctx, HistoryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if last := revs[len(revs)-1]; last.Number != res.Revision || !last.Unchanged {
		t.Errorf("latest revision = %+v, want revision %d recording that nothing changed", last, res.Revision)
	}
}
