package apply

import (
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/pynenc/piceli/internal/graph"
	"github.com/pynenc/piceli/internal/history"
	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/kube"
	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/progress"
)

// The test release: its namespace, field manager and digest key.
const (
	testNamespace = "shop"
	testManager   = "piceli-shop"
)

var (
	testKey        = []byte("engine test digest key")
	configMapsGVR  = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	configMapsKind = schema.GroupResource{Resource: "configmaps"}
	// resources names the resource of each kind the tests write.
	resources = map[string]schema.GroupVersionResource{"ConfigMap": configMapsGVR, "Secret": {Version: "v1", Resource: "secrets"}, "Service": {Version: "v1", Resource: "services"}}
)

// fakeCluster stands in for an API server below the engine: a fake dynamic
// client whose reactors keep objects in memory and answer what the engine
// sends. A server-side apply creates an absent object or replaces a present
// one with the applied object, keeping its UID (no field merging and no
// field ownership, so no field-manager conflicts unless a fault answers
// one), is refused with 409 when it names a resourceVersion that is not the
// live one (an absent object is created whatever resourceVersion the apply
// names, as kube-apiserver does), and records the field manager; a dry-run
// stores nothing. A delete honours a UID
// precondition with 409, as the server does. Every object gets a UID and
// every write a new resourceVersion. client-go's own tracker cannot stand
// in: it refuses an apply of an absent object with 404.
//
// A fault is a reactor prepended in front of these (failOn, answerTimes);
// Actions lists every request sent, faulted or not.
type fakeCluster struct {
	*dynamicfake.FakeDynamicClient

	mu   sync.Mutex
	objs map[objectKey]*unstructured.Unstructured
	seq  int // last number handed out as a UID or resourceVersion
}

type objectKey struct {
	gvr             schema.GroupVersionResource
	namespace, name string
}

func newFakeCluster() *fakeCluster {
	c := &fakeCluster{
		FakeDynamicClient: dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), listKinds()),
		objs:              map[objectKey]*unstructured.Unstructured{},
	}
	c.PrependReactor("patch", "*", c.patch)
	c.PrependReactor("get", "*", c.get)
	c.PrependReactor("list", "*", c.list)
	c.PrependReactor("delete", "*", c.delete)
	return c
}

func (c *fakeCluster) patch(a clienttesting.Action) (bool, runtime.Object, error) {
	p, ok := a.(clienttesting.PatchActionImpl)
	if !ok || p.GetPatchType() != types.ApplyPatchType {
		return true, nil, apierrors.NewBadRequest("the fake cluster answers only server-side applies")
	}
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON(p.GetPatch()); err != nil {
		return true, nil, apierrors.NewBadRequest(err.Error())
	}
	out, err := c.applied(p, obj)
	if err != nil {
		return true, nil, err
	}
	return true, out, nil
}

// applied stores what applying obj as p asks makes of the live object, and
// returns it.
func (c *fakeCluster) applied(p clienttesting.PatchActionImpl, obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := objectKey{p.GetResource(), p.GetNamespace(), p.GetName()}
	live := c.objs[k]
	// As kube-apiserver 1.36 answers a metadata.uid in an apply body: 409
	// when no object exists, 422 (uid is immutable) when another does.
	switch uid := obj.GetUID(); {
	case uid != "" && live == nil:
		return nil, apierrors.NewConflict(p.GetResource().GroupResource(), p.GetName(), fmt.Errorf("uid mismatch: the provided object specified uid %s, and no existing object was found", uid))
	case uid != "" && live.GetUID() != uid:
		return nil, apierrors.NewInvalid(schema.GroupKind{Kind: obj.GetKind()}, p.GetName(), field.ErrorList{field.Invalid(field.NewPath("metadata", "uid"), uid, "field is immutable")})
	}
	if rv := obj.GetResourceVersion(); rv != "" && live != nil && live.GetResourceVersion() != rv {
		return nil, apierrors.NewConflict(p.GetResource().GroupResource(), p.GetName(), errors.New("the object has been modified; please apply your changes to the latest version and try again"))
	}
	out := obj.DeepCopy()
	out.SetNamespace(p.GetNamespace())
	out.SetManagedFields([]metav1.ManagedFieldsEntry{{Manager: p.PatchOptions.FieldManager, Operation: metav1.ManagedFieldsOperationApply, APIVersion: obj.GetAPIVersion()}})
	if live != nil {
		out.SetUID(live.GetUID())
		out.SetResourceVersion(live.GetResourceVersion())
	} else {
		out.SetUID(types.UID("uid-" + c.next()))
	}
	if len(p.PatchOptions.DryRun) > 0 {
		return out, nil
	}
	out.SetResourceVersion(c.next())
	c.objs[k] = out
	return out.DeepCopy(), nil
}

// next hands out the next number; the caller holds c.mu.
func (c *fakeCluster) next() string {
	c.seq++
	return strconv.Itoa(c.seq)
}

func (c *fakeCluster) get(a clienttesting.Action) (bool, runtime.Object, error) {
	g := a.(clienttesting.GetAction)
	live := c.live(g.GetResource(), g.GetNamespace(), g.GetName())
	if live == nil {
		return true, nil, apierrors.NewNotFound(g.GetResource().GroupResource(), g.GetName())
	}
	return true, live, nil
}

// listKinds names the list kind of every resource the tests write, which
// the fake client needs to LIST them (readiness lists a wave's objects).
func listKinds() map[schema.GroupVersionResource]string {
	out := map[schema.GroupVersionResource]string{}
	for kind, gvr := range resources {
		out[gvr] = kind + "List"
	}
	return out
}

// list answers a LIST with the live objects of its resource and namespace.
func (c *fakeCluster) list(a clienttesting.Action) (bool, runtime.Object, error) {
	l := a.(clienttesting.ListAction)
	c.mu.Lock()
	defer c.mu.Unlock()
	out := &unstructured.UnstructuredList{Object: map[string]any{"apiVersion": l.GetResource().GroupVersion().String()}}
	for k, o := range c.objs {
		if k.gvr == l.GetResource() && k.namespace == l.GetNamespace() {
			out.Items = append(out.Items, *o.DeepCopy())
		}
	}
	return true, out, nil
}

func (c *fakeCluster) delete(a clienttesting.Action) (bool, runtime.Object, error) {
	d := a.(clienttesting.DeleteActionImpl)
	c.mu.Lock()
	defer c.mu.Unlock()
	k := objectKey{d.GetResource(), d.GetNamespace(), d.GetName()}
	live := c.objs[k]
	if live == nil {
		return true, nil, apierrors.NewNotFound(d.GetResource().GroupResource(), d.GetName())
	}
	if pre := d.DeleteOptions.Preconditions; pre != nil && pre.UID != nil && *pre.UID != live.GetUID() {
		msg := fmt.Errorf("Precondition failed: UID in precondition: %v, UID in object meta: %v", *pre.UID, live.GetUID())
		return true, nil, apierrors.NewConflict(d.GetResource().GroupResource(), d.GetName(), msg)
	}
	delete(c.objs, k)
	return true, nil, nil
}

// live returns a copy of the stored object, or nil.
func (c *fakeCluster) live(gvr schema.GroupVersionResource, namespace, name string) *unstructured.Unstructured {
	c.mu.Lock()
	defer c.mu.Unlock()
	if u := c.objs[objectKey{gvr, namespace, name}]; u != nil {
		return u.DeepCopy()
	}
	return nil
}

// configMap returns the test namespace's ConfigMap name as stored, or nil.
func (c *fakeCluster) configMap(name string) *unstructured.Unstructured {
	return c.live(configMapsGVR, testNamespace, name)
}

// seed stores u as applied by manager, as if someone wrote it before the
// test, and returns it as stored.
func (c *fakeCluster) seed(t *testing.T, u *unstructured.Unstructured, manager string) *unstructured.Unstructured {
	t.Helper()
	p := clienttesting.NewPatchActionWithOptions(resources[u.GetKind()], u.GetNamespace(), u.GetName(), types.ApplyPatchType, nil, metav1.PatchOptions{FieldManager: manager})
	out, err := c.applied(p, u.DeepCopy())
	if err != nil {
		t.Fatalf("seed %s: %v", object.RefOf(u), err)
	}
	return out
}

// remove deletes an object behind the engine's back.
func (c *fakeCluster) remove(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.objs, objectKey{configMapsGVR, testNamespace, name})
}

// edit changes a stored object of the test namespace behind the engine's
// back, as another client's write would: it gets a new resourceVersion.
func (c *fakeCluster) edit(t *testing.T, kind, name string, change func(u *unstructured.Unstructured)) {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	u := c.objs[objectKey{resources[kind], testNamespace, name}]
	if u == nil {
		t.Fatalf("edit %s %s: not in the cluster", kind, name)
	}
	change(u)
	u.SetResourceVersion(c.next())
}

// failOn makes every verb request ("patch", "get", "delete") about an
// object named name answer err.
func (c *fakeCluster) failOn(verb, name string, err error) {
	c.answerTimes(verb, name, -1, func(clienttesting.Action) error { return err })
}

// answerTimes makes the first n verb requests about an object named name
// (every one when n < 0) answer what fault returns; fault may act on the
// cluster first, as a server that wrote and then failed to answer does.
func (c *fakeCluster) answerTimes(verb, name string, n int, fault func(clienttesting.Action) error) {
	c.PrependReactor(verb, "*", func(a clienttesting.Action) (bool, runtime.Object, error) {
		named, ok := a.(interface{ GetName() string })
		if !ok || named.GetName() != name || n == 0 {
			return false, nil, nil
		}
		n--
		return true, nil, fault(a)
	})
}

// sent returns the verb requests sent about objects named name.
func (c *fakeCluster) sent(verb, name string) []clienttesting.Action {
	var out []clienttesting.Action
	for _, a := range c.Actions() {
		named, ok := a.(interface{ GetName() string })
		if a.GetVerb() == verb && ok && named.GetName() == name {
			out = append(out, a)
		}
	}
	return out
}

// configMap returns a rendered ConfigMap of the test release.
func configMap(name, value string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1",
		"kind":       "ConfigMap",
		"metadata": map[string]any{
			"name": name, "namespace": testNamespace,
			"labels": map[string]any{"piceli.dev/release": "shop"},
		},
		"data": map[string]any{"value": value},
	}}
}

// createStep plans the creation of u, absent from the cluster.
func createStep(u *unstructured.Unstructured) plan.Step {
	dig := plan.Digester{Key: testKey}
	m := dig.Sealed(u)
	return plan.Step{
		Ref: object.RefOf(u), APIVersion: u.GetAPIVersion(), Resource: resources[u.GetKind()].Resource, Stage: graph.StageConfig,
		Action: plan.Create, Observed: plan.Observed{Absent: true}, Desired: dig.Of(m), Manifest: m,
	}
}

// updateStep plans changing live into u, observing live as the planner
// does (plan/step.go, observe): its UID, resourceVersion and the keyed
// digest of live's values at the paths u sets, both as rendered and read.
func updateStep(u, live *unstructured.Unstructured) plan.Step {
	dig := plan.Digester{Key: testKey}
	s := createStep(u)
	s.Action = plan.Update
	s.Observed = plan.Observed{
		UID: string(live.GetUID()), ResourceVersion: live.GetResourceVersion(),
		Fields: dig.Fields(dig.Sealed(u), live), // as the planner observes it
	}
	return s
}

// inputOf builds a valid, hashed plan of the test release with one wave per
// argument, and the engine input that runs it: each step's manifest as its
// desired object (set Desired for a Secret, whose manifest holds digests),
// and the observed resourceVersion of each existing object as fresh.
func inputOf(t *testing.T, waves ...[]plan.Step) Input {
	t.Helper()
	p := &plan.Plan{
		Schema:  plan.Schema,
		Release: plan.Release{Name: "shop", Owner: "shop", FieldManager: testManager},
		Target:  plan.Target{Server: "https://127.0.0.1:6443", Context: "test", Namespace: testNamespace, ClusterUID: "cluster-uid"},
	}
	in := Input{Plan: p, Desired: map[object.Ref]*unstructured.Unstructured{}, Fresh: map[object.Ref]string{}, Key: testKey, Source: SourceApply}
	for _, steps := range waves {
		w := graph.Wave{Stage: graph.StageConfig}
		for _, s := range steps {
			w.Nodes = append(w.Nodes, len(p.Steps))
			p.Steps = append(p.Steps, s)
			in.Desired[s.Ref] = &unstructured.Unstructured{Object: runtime.DeepCopyJSON(s.Manifest)}
			if !s.Observed.Absent {
				in.Fresh[s.Ref] = s.Observed.ResourceVersion
			}
		}
		p.Waves = append(p.Waves, w)
	}
	if err := plan.Validate(p); err != nil {
		t.Fatalf("plan.Validate() = %v", err)
	}
	h, err := plan.ComputeHash(p)
	if err != nil {
		t.Fatal(err)
	}
	p.Hash = h
	return in
}

// creates is inputOf for waves of one ConfigMap creation each, named by
// names.
func creates(t *testing.T, names ...string) Input {
	t.Helper()
	waves := make([][]plan.Step, len(names))
	for i, n := range names {
		waves[i] = []plan.Step{createStep(configMap(n, n+"-1"))}
	}
	return inputOf(t, waves...)
}

// newEngine returns an engine over c with a fresh state directory. Its
// readiness wait is short, so a test that goes wrong fails instead of
// hanging; no failpoint is armed, whatever the environment says.
func newEngine(t *testing.T, c *fakeCluster, opts Options) *Engine {
	t.Helper()
	t.Setenv(FailpointEnv, "")
	if opts.ReadyTimeout == 0 {
		opts.ReadyTimeout = 3 * time.Second
	}
	return &Engine{Client: &kube.Client{Dynamic: c}, StateDir: t.TempDir(), Options: opts}
}

// events collects what an engine reports.
type events struct {
	mu  sync.Mutex
	all []progress.Event
}

func (e *events) sink() progress.Sink {
	return func(ev progress.Event) {
		e.mu.Lock()
		defer e.mu.Unlock()
		e.all = append(e.all, ev)
	}
}

func (e *events) last() progress.Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.all) == 0 {
		return progress.Event{}
	}
	return e.all[len(e.all)-1]
}

// replayRun reads a run's journal from disk and replays it; a torn tail or
// a journal no correct run writes fails the test.
func replayRun(t *testing.T, stateDir, run string) ([]journal.Record, journal.State) {
	t.Helper()
	recs, tail, err := journal.Read(JournalPath(stateDir, run))
	if err != nil {
		t.Fatalf("journal.Read() = %v", err)
	}
	if tail != nil {
		t.Fatalf("journal.Read() found a torn tail: %v", tail)
	}
	st, err := journal.Replay(recs)
	if err != nil {
		t.Fatalf("journal.Replay() = %v", err)
	}
	checkIntentsFirst(t, recs)
	return recs, st
}

// checkIntentsFirst fails the test when a step's outcome is not preceded
// by its intent: an intent is durable before the cluster is touched, and
// an undo's intent before the undo.
func checkIntentsFirst(t *testing.T, recs []journal.Record) {
	t.Helper()
	open := map[journal.Type]map[int]bool{journal.Intent: {}, journal.CompensateIntent: {}}
	intentOf := map[journal.Type]journal.Type{journal.Outcome: journal.Intent, journal.Settled: journal.Intent, journal.CompensateOutcome: journal.CompensateIntent}
	for _, r := range recs {
		if _, ok := open[r.Type]; ok {
			open[r.Type][r.Step] = true
			continue
		}
		if it, ok := intentOf[r.Type]; ok {
			if !open[it][r.Step] {
				t.Errorf("record %d (%s of step %d) has no %s before it", r.Seq, r.Type, r.Step, it)
			}
			delete(open[it], r.Step)
		}
	}
}

// story spells a journal one line a record ("intent 1 create", "outcome 1
// failed", "wave-ready 0"), so a test compares a whole run with one diff.
func story(recs []journal.Record) []string {
	out := make([]string, len(recs))
	for k, r := range recs {
		switch r.Type {
		case journal.Intent:
			out[k] = fmt.Sprintf("%s %d %s", r.Type, r.Step, r.Action)
		case journal.Outcome, journal.Settled, journal.CompensateOutcome:
			out[k] = fmt.Sprintf("%s %d %s", r.Type, r.Step, r.Result)
		case journal.CompensateIntent:
			out[k] = fmt.Sprintf("%s %d", r.Type, r.Step)
		case journal.WaveReady:
			out[k] = fmt.Sprintf("%s %d", r.Type, r.Wave)
		default:
			out[k] = string(r.Type)
		}
	}
	return out
}

// lastRecord returns the last record of type typ about step, or fails.
func lastRecord(t *testing.T, recs []journal.Record, typ journal.Type, step int) journal.Record {
	t.Helper()
	for k := len(recs) - 1; k >= 0; k-- {
		if recs[k].Type == typ && recs[k].Step == step {
			return recs[k]
		}
	}
	t.Fatalf("the journal holds no %s record of step %d", typ, step)
	return journal.Record{}
}

// revisions lists the release's recorded revisions.
func revisions(t *testing.T, stateDir string) []history.Revision {
	t.Helper()
	revs, err := history.List(stateDir)
	if err != nil {
		t.Fatalf("history.List() = %v", err)
	}
	return revs
}

// numbered gives records the sequence numbers Append would, for pure tests
// of what a journal's replay decides.
func numbered(recs ...journal.Record) []journal.Record {
	out := make([]journal.Record, len(recs))
	for i, r := range recs {
		r.Seq = int64(i) + 1
		out[i] = r
	}
	return out
}
