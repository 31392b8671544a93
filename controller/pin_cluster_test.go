package controller_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/pynenc/piceli/api/v1alpha1"
	"github.com/pynenc/piceli/controller"
	"github.com/pynenc/piceli/controller/source"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
	"github.com/pynenc/piceli/refusal"
)

// historySource keeps every revision a test published, as a registry
// keeps every digest: Resolve names the latest, Fetch gives exactly the
// revision asked for.
type historySource struct {
	mu      sync.Mutex
	latest  string
	byID    map[string]map[string]string
	fetched map[string]int
}

func newHistorySource() *historySource {
	return &historySource{byID: map[string]map[string]string{}, fetched: map[string]int{}}
}

// publish makes files the latest revision and returns it as status
// writes it.
func (s *historySource) publish(files map[string]string) string {
	h := sha256.New()
	for _, n := range sortedNames(files) {
		fmt.Fprintf(h, "%s\x00%s\x00", n, files[n])
	}
	id := "sha256:" + hex.EncodeToString(h.Sum(nil))
	s.mu.Lock()
	defer s.mu.Unlock()
	s.byID[id], s.latest = files, id
	return "test@" + id
}

func (s *historySource) Resolve(context.Context) (source.Revision, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return source.Revision{ID: s.latest, Ref: "test"}, nil
}

func (s *historySource) Fetch(_ context.Context, rev source.Revision, dir string) (*source.Content, error) {
	s.mu.Lock()
	files, ok := s.byID[rev.ID]
	s.fetched[rev.ID]++
	s.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("no revision %s", rev.ID)
	}
	for n, body := range files {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(body), 0o600); err != nil {
			return nil, err
		}
	}
	return &source.Content{Revision: rev, Files: dir}, nil
}

func (s *historySource) fetches(id string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fetched[id]
}

func sortedNames(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// settings is revision n: ConfigMap settings with rev: n.
func settings(n int) map[string]string {
	return map[string]string{"settings.yaml": fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  rev: %q\n", fmt.Sprint(n))}
}

func (h *harness) settingsRev(t *testing.T, ns string) string {
	t.Helper()
	var cm corev1.ConfigMap
	if err := h.client.Get(sandboxtest.Context(t, 30*time.Second), types.NamespacedName{Namespace: ns, Name: "settings"}, &cm); err != nil {
		t.Fatal(err)
	}
	return cm.Data["rev"]
}

// startPinned starts a controller whose source keeps every revision
// published, for Release app in a namespace the deployer role is granted.
func startPinned(t *testing.T) (*harness, *historySource, types.NamespacedName, context.Context) {
	t.Helper()
	h := startController(t, 0)
	h.grantDeployer(t, h.ns, nil)
	src := newHistorySource()
	h.setSource(src)
	return h, src, types.NamespacedName{Namespace: h.ns, Name: "app"}, sandboxtest.Context(t, 5*time.Minute)
}

// #35 acceptance 2: rollback to revision 1 while revision 3 is
// published: revision 1 runs, and ten source intervals later it still
// runs, with nothing written; unpin lets revision 3 be applied; a pin also
// ends when a person approves the newer plan by its hash.
func TestRollbackPinsARevisionUntilUnpinOrAnApprovedNewerPlan(t *testing.T) {
	h, src, key, ctx := startPinned(t)
	ns := key.Namespace

	revs := []string{"", src.publish(settings(1))}
	h.createRelease(t, ns, "app", v1alpha1.ReleaseSpec{Policy: &v1alpha1.Policy{Actions: []string{"create", "update"}}})
	appliedAt := func(rev string) func(*v1alpha1.Release) bool {
		return func(r *v1alpha1.Release) bool {
			return r.Status.State == v1alpha1.StateReady && r.Status.AppliedRevision == rev
		}
	}
	h.waitFor(t, ns, "app", "revision 1 is applied", appliedAt(revs[1]))
	for n := 2; n <= 3; n++ {
		revs = append(revs, src.publish(settings(n)))
		h.waitFor(t, ns, "app", fmt.Sprintf("revision %d is applied", n), appliedAt(revs[n]))
	}

	// A revision it never ran, and a Release that does not exist, are
	// refused with nothing written.
	before := h.release(t, ns, "app")
	for _, to := range []string{"sha256:" + fmt.Sprintf("%064x", 7), "0123456789ab", "latest", ""} {
		if _, err := controller.Rollback(ctx, h.client, key, to, controller.RollbackOptions{}); !refusal.Is(err) {
			t.Errorf("rollback --to %q: %v; want a refusal", to, err)
		}
	}
	if _, err := controller.Rollback(ctx, h.client, types.NamespacedName{Namespace: ns, Name: "nope"}, revs[1], controller.RollbackOptions{}); !refusal.Is(err) {
		t.Errorf("rollback of a missing Release: %v; want a refusal", err)
	}
	if _, err := controller.Unpin(ctx, h.client, key); !refusal.Is(err) {
		t.Errorf("unpin of a Release that is not pinned: %v; want a refusal", err)
	}
	if after := h.release(t, ns, "app"); after.ResourceVersion != before.ResourceVersion && after.Generation != before.Generation {
		t.Fatalf("a refused rollback changed the Release's spec (generation %d → %d)", before.Generation, after.Generation)
	}

	// Rollback to revision 1 by the first hex digits of its digest.
	id1 := revs[1][len("test@sha256:"):]
	req, err := controller.Rollback(ctx, h.client, key, id1[:16], controller.RollbackOptions{Reason: "revision 3 is bad", By: "tester"})
	if err != nil {
		t.Fatal(err)
	}
	if req.Revision != revs[1] || req.Latest != revs[3] || req.Schema != controller.RollbackSchema {
		t.Fatalf("rollback request %+v; want revision %s, latest %s", req, revs[1], revs[3])
	}
	rel := h.waitFor(t, ns, "app", "revision 1 runs, pinned, with revision 3's plan shown", func(r *v1alpha1.Release) bool {
		return appliedAt(revs[1])(r) && r.Status.Pin != nil && r.Status.Pin.LatestPlan != "" && r.Status.Plan != nil && r.Status.Plan.SourceRevision == revs[3]
	})
	if got := h.settingsRev(t, ns); got != "1" {
		t.Fatalf("ConfigMap settings has rev %q after the rollback; want 1", got)
	}
	if p := rel.Status.Pin; p.Revision != revs[1] || p.LatestRevision != revs[3] || p.Reason != "revision 3 is bad" || p.By != "tester" || rel.Status.Plan.Hash != p.LatestPlan {
		t.Fatalf("status.pin %+v, plan %s", p, rel.Status.Plan.Hash)
	}
	if c := meta.FindStatusCondition(rel.Status.Conditions, v1alpha1.ConditionPinned); c == nil || c.Status != "True" {
		t.Fatalf("no Pinned condition: %+v", rel.Status.Conditions)
	}
	if rel.Status.Plan.ApprovedBy != "" {
		t.Fatalf("the policy approved revision 3's plan while pinned: %+v", rel.Status.Plan)
	}

	time.Sleep(3 * time.Second) // the pass after the rollback settles
	versions := h.versions(t, ns)
	fetched := src.fetches(revs[1][len("test@"):])
	writes := h.watchWrites(t, ns)
	time.Sleep(10 * 2 * time.Second) // ten source intervals
	if w := writes(); len(w) > 0 {
		t.Errorf("written in %s while the Release was pinned and at rest: %v", ns, w)
	}
	for obj, v := range h.versions(t, ns) {
		if versions[obj] != v {
			t.Errorf("%s was written while the Release was pinned and at rest (resourceVersion %s → %s)", obj, versions[obj], v)
		}
	}
	if got := h.settingsRev(t, ns); got != "1" || !appliedAt(revs[1])(h.release(t, ns, "app")) {
		t.Fatalf("ten intervals after the rollback: settings rev %q, applied %s; want revision 1", got, h.release(t, ns, "app").Status.AppliedRevision)
	}
	if n := src.fetches(revs[1][len("test@"):]); n != fetched {
		t.Errorf("the pinned revision was fetched %d more times while at rest; want it kept", n-fetched)
	}

	un, err := controller.Unpin(ctx, h.client, key)
	if err != nil {
		t.Fatal(err)
	}
	if un.Revision != revs[1] {
		t.Fatalf("unpin %+v", un)
	}
	rel = h.waitFor(t, ns, "app", "unpin lets revision 3 be applied", appliedAt(revs[3]))
	if got := h.settingsRev(t, ns); got != "3" || rel.Status.Pin != nil || meta.FindStatusCondition(rel.Status.Conditions, v1alpha1.ConditionPinned) != nil {
		t.Fatalf("after unpin: settings rev %q, status.pin %+v", got, rel.Status.Pin)
	}

	// A pin ends too when a person approves the newer plan by its hash.
	if _, err := controller.Rollback(ctx, h.client, key, revs[2], controller.RollbackOptions{}); err != nil {
		t.Fatal(err)
	}
	rel = h.waitFor(t, ns, "app", "revision 2 runs, pinned", func(r *v1alpha1.Release) bool {
		return appliedAt(revs[2])(r) && r.Status.Plan != nil && r.Status.Plan.SourceRevision == revs[3]
	})
	h.approve(t, ns, "app", rel.Status.Plan.Hash)
	rel = h.waitFor(t, ns, "app", "the approved newer plan is applied and the pin removed", func(r *v1alpha1.Release) bool {
		return appliedAt(revs[3])(r) && r.Spec.Pin == nil && r.Status.Pin == nil
	})
	if got := h.settingsRev(t, ns); got != "3" {
		t.Fatalf("settings rev %q after approving revision 3's plan; want 3", got)
	}
}

// A pinned Release at rest is watched for drift like any other, and its
// drift mode decides what happens, not its policy: in report mode a
// `kubectl edit` of the pinned revision's field is reported within one
// drift interval and left in place, though the policy approves updates.
func TestAPinnedReleaseReportsDriftAndWritesNothing(t *testing.T) {
	h, src, key, ctx := startPinned(t)
	ns := key.Namespace

	first := src.publish(settings(1))
	h.createRelease(t, ns, "app", v1alpha1.ReleaseSpec{
		Policy: &v1alpha1.Policy{Actions: []string{"create", "update"}},
		Drift:  &v1alpha1.Drift{Mode: v1alpha1.DriftReport, Interval: metav1.Duration{Duration: driftEvery}},
	})
	h.waitFor(t, ns, "app", "revision 1 is applied", func(r *v1alpha1.Release) bool { return r.Status.AppliedRevision == first })
	second := src.publish(settings(2))
	h.waitFor(t, ns, "app", "revision 2 is applied", func(r *v1alpha1.Release) bool { return r.Status.AppliedRevision == second })
	if _, err := controller.Rollback(ctx, h.client, key, first, controller.RollbackOptions{Reason: "drift test"}); err != nil {
		t.Fatal(err)
	}
	h.waitFor(t, ns, "app", "revision 1 runs, pinned, and is compared once", func(r *v1alpha1.Release) bool {
		c := meta.FindStatusCondition(r.Status.Conditions, v1alpha1.ConditionDrifted)
		return r.Status.AppliedRevision == first && r.Status.Pin != nil && r.Status.State == v1alpha1.StateReady && c != nil && c.Status == metav1.ConditionFalse
	})

	cm, _ := h.configMap(t, ns, "settings")
	patch := client.RawPatch(types.MergePatchType, []byte(`{"data":{"rev":"edited"}}`))
	if err := h.client.Patch(ctx, cm, patch, client.FieldOwner("kubectl-edit")); err != nil {
		t.Fatal(err)
	}
	rel := h.waitForWithin(t, ns, "app", driftEvery+10*time.Second, "the pinned Release reports the edit", func(r *v1alpha1.Release) bool {
		f := driftedField(r, "settings", "data.rev")
		return f != nil && f.Manager == "kubectl-edit" && r.Status.State == v1alpha1.StateDrifted
	})
	if rel.Status.Pin == nil || rel.Status.AppliedRevision != first {
		t.Fatalf("the drift report ended the pin: status.pin %+v, applied %s", rel.Status.Pin, rel.Status.AppliedRevision)
	}
	before := h.versions(t, ns)
	writes := h.watchWrites(t, ns)
	time.Sleep(3 * driftEvery)
	if w := writes(); len(w) > 0 {
		t.Errorf("report mode wrote in %s while pinned: %v", ns, w)
	}
	for obj, v := range h.versions(t, ns) {
		if before[obj] != v {
			t.Errorf("report mode wrote %s while pinned (resourceVersion %s → %s)", obj, before[obj], v)
		}
	}
	if got := h.settingsRev(t, ns); got != "edited" {
		t.Errorf("settings rev %q; want the edit left in place in report mode", got)
	}
}
