package plan

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"sync"

	"golang.org/x/sync/errgroup"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/pynenc/piceli/internal/graph"
	"github.com/pynenc/piceli/internal/history"
	"github.com/pynenc/piceli/internal/kube"
	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/wire"
)

// Input is what a plan is made of besides the cluster: a rendered
// composition (render.Objects: in apply order, namespaces defaulted,
// release-labelled) and the release it belongs to.
type Input struct {
	Release   Release
	Namespace string // the target namespace
	// Namespaces are the other namespaces objects may be written to; an
	// object in any namespace but these and Namespace is refused.
	Namespaces []string
	Objects    []object.Declared    // rendered objects, in apply order
	Components []wire.ComponentInfo // resolves DependsOn component names
	// Prune deletes objects labelled with the release that it no longer
	// declares, when Owned holds their UIDs; off, they are only listed as
	// kept.
	Prune bool
	// Previous are the objects of the release's latest revision: prune
	// lists their kinds and namespaces as well as the composition's. Only
	// their Ref, APIVersion and Resource are read.
	Previous []history.Object
	// Owned holds the UIDs of the objects the release's records say it
	// created or wrote (Owned); prune deletes no other object.
	Owned map[string]bool
	// RequirePinnedImages refuses objects whose container or init
	// container images are not pinned by digest; without it each such
	// image is a warning of its step.
	RequirePinnedImages bool
	// Wait is the release's readiness policy for objects without a
	// piceli.dev/wait annotation: spec.WaitReady (also when empty) or
	// spec.WaitNone. An object's annotation beats it.
	Wait string
	// Environment is the environment of the release spec being planned;
	// nil when it declares none. The plan records it (Plan.Environment).
	Environment *Environment
	// Capabilities are the cluster's as the release's charts were rendered
	// against them; nil when none was. The plan records them
	// (Plan.Capabilities).
	Capabilities *Capabilities
}

// DefaultParallel is how many reads and dry-runs a plan keeps in flight
// when Options.Parallel is zero; apply.DefaultParallel says how it was
// sized.
const DefaultParallel = 16

// Options tune how a plan is made. The zero value is valid.
type Options struct {
	Parallel     int  // concurrent reads and dry-runs; 0 means DefaultParallel
	AllowReplace bool // plan replace for immutable changes instead of refusing
	// Reclaim plans back the declared fields other managers took by an
	// update (Step.Reclaim) instead of blocking on them; fields another
	// manager owns by server-side apply stay conflicts.
	Reclaim bool
	Key     []byte // digest key (ReadKey); nil means an ephemeral one
	// Approved is the plan an approval check confirms, made earlier of the
	// same inputs; nil plans anew. A step whose desired manifest and live
	// object are the ones Approved saw is taken from it without a dry-run
	// (see confirmed); the rest are planned as usual. plan.Stale then
	// compares the two.
	Approved *Plan
	// ApprovedObjects says that the declared objects are Approved's own
	// manifests: an apply took them from the approved plan for a render,
	// because the files they were rendered from had not changed. A step
	// then takes its desired manifest and digest from the approved step
	// instead of copying and encoding the object again.
	ApprovedObjects bool
	// Settled is what the release's records say its objects were left as
	// (SettledBy of its latest revision), for this release's field
	// manager. An object still at that UID and resourceVersion whose
	// desired manifest is the one written is a no-op without a dry-run:
	// nobody has written it since the release did. Nil dry-runs every
	// existing object.
	Settled map[object.Ref]Settled
	// Records, when set, gives Input.Owned and Settled when the plan first
	// needs either, in place of those fields: for an undeclared object of
	// the release (prune) or a step Approved does not confirm. An approval
	// check of a release nothing changed then reads none of the records
	// behind them (journals, an earlier plan). It is called at most once.
	Records func() (owned map[string]bool, settled map[object.Ref]Settled)
	// Observe, when set, is called once for each declared object the
	// LISTs found, with the object as listed, before any step is made and
	// on Make's goroutine: an approval check takes the readiness of what
	// it read from there (apply.Input.Current), so a no-op run need not
	// read it again. Nil observes nothing.
	Observe func(object.Ref, *unstructured.Unstructured)
}

// maker holds one plan's inputs while it is made.
type maker struct {
	c    *kube.Client
	in   Input
	opts Options
	dig  Digester
	res  []kube.Resource
	// approved indexes Options.Approved's steps; nil plans every step.
	approved map[object.Ref]Step
	live     *liveIndex
	// declared holds the reference of every object, the target namespace
	// added by read included; read fills it, and it is only read after.
	declared map[object.Ref]bool
	keys     []listKey // the LISTs read made, for prunes
	kept     []Kept    // filled by steps
	// records gives Input.Owned and Options.Settled, or what
	// Options.Records returns for them, read once.
	records func() (map[string]bool, map[object.Ref]Settled)
}

// Make reads the cluster and returns the plan for in: every declared object
// resolved through discovery, read with one LIST per kind and namespace,
// compared through a server-side dry-run of the release's apply (unless
// Options.Approved or Options.Settled already hold the answer), and
// ordered into waves. Undeclared objects of the release that it does not
// delete are listed in Plan.Kept with the reason. It writes nothing to the
// cluster. Bad input (unresolvable kinds, a dependency cycle, an object
// the server rejects, a namespace or an unpinned image Input does not
// allow, a piceli.dev/wait annotation other than "true" or "false") is an
// error naming the object. Each step records whether apply waits for its
// object (Step.NoWait).
func Make(ctx context.Context, c *kube.Client, in Input, opts Options) (*Plan, error) {
	m, err := newMaker(c, in, opts)
	if err != nil {
		return nil, err
	}
	if err := errors.Join(m.checkImages(), m.checkWaits()); err != nil {
		return nil, err
	}
	id, err := c.Identity(ctx)
	if err != nil {
		return nil, err
	}
	if err := m.read(ctx); err != nil {
		return nil, err
	}
	m.reportLive()
	steps, err := m.steps(ctx)
	if err != nil {
		return nil, err
	}
	return m.assemble(id, steps)
}

func newMaker(c *kube.Client, in Input, opts Options) (*maker, error) {
	if opts.Parallel <= 0 {
		opts.Parallel = DefaultParallel
	}
	if opts.Key == nil {
		opts.Key = make([]byte, 32)
		rand.Read(opts.Key)
	}
	records := opts.Records
	if records == nil {
		records = func() (map[string]bool, map[object.Ref]Settled) { return in.Owned, opts.Settled }
	}
	m := &maker{c: c, in: in, opts: opts, dig: Digester{Key: opts.Key}, approved: approvedSteps(opts.Approved)}
	m.records = sync.OnceValues(records)
	return m, nil
}

// owned reports whether the release's records say it owns uid.
func (m *maker) owned(uid string) bool {
	owned, _ := m.records()
	return owned[uid]
}

// settled is what the release's records say ref was left as.
func (m *maker) settled(ref object.Ref) (Settled, bool) {
	_, settled := m.records()
	k, ok := settled[ref]
	return k, ok
}

// read resolves every object and lists what exists, adding the target
// namespace when neither the composition nor the cluster has it.
func (m *maker) read(ctx context.Context) error {
	if err := m.resolve(ctx); err != nil {
		return err
	}
	if err := m.checkNamespaces(); err != nil {
		return err
	}
	m.keys = m.listKeys()
	live, err := readLive(ctx, m.c.Dynamic, m.keys, m.opts.Parallel)
	if err != nil {
		return err
	}
	m.live = live
	m.declared = map[object.Ref]bool{}
	for _, o := range m.in.Objects {
		m.declared[object.RefOf(o.Object)] = true
	}
	if m.needsNamespace() {
		m.in.Objects = append([]object.Declared{targetNamespace(m.in)}, m.in.Objects...)
		m.declared[namespaceRef(m.in.Namespace)] = true
		return m.resolve(ctx)
	}
	return nil
}

// reportLive hands Options.Observe each declared object that exists, in
// the composition's order.
func (m *maker) reportLive() {
	if m.opts.Observe == nil {
		return
	}
	for _, o := range m.in.Objects {
		ref := object.RefOf(o.Object)
		if live := m.live.get(ref); live != nil {
			m.opts.Observe(ref, live)
		}
	}
}

func (m *maker) resolve(ctx context.Context) error {
	res, err := m.c.Resolve(ctx, m.in.Objects)
	m.res = res
	return err
}

// listKeys returns one LIST per resource and namespace the objects or the
// previous revision use, plus the Namespaces the plan needs to see (see
// namespaceKeys).
func (m *maker) listKeys() []listKey {
	keys := m.namespaceKeys()
	for i, o := range m.in.Objects {
		k := listKey{GVR: m.res[i].GVR}
		if m.res[i].Namespaced {
			k.Namespace = o.Object.GetNamespace()
		}
		keys = append(keys, k)
	}
	keys = append(keys, m.previousKeys()...)
	seen := map[listKey]bool{}
	return slices.DeleteFunc(keys, func(k listKey) bool {
		dup := seen[k]
		seen[k] = true
		return dup
	})
}

// namespaceKeys returns the LISTs of Namespaces a plan needs: whether the
// target namespace and those of the objects exist, and which Namespaces
// carry the release's label (prune's candidates; see ours). When the
// composition or the previous revision has Namespace objects, that is one
// LIST of them all, as their kind's LIST. Otherwise it is one LIST by the
// label and one by name per namespace: a controller planning hundreds of
// releases, each in a namespace of its own, does not read every Namespace
// of the cluster for each.
func (m *maker) namespaceKeys() []listKey {
	all := []listKey{{GVR: namespacesGVR}}
	for i := range m.in.Objects {
		if m.res[i].GVR == namespacesGVR {
			return all
		}
	}
	for _, k := range m.previousKeys() {
		if k.GVR == namespacesGVR {
			return all
		}
	}
	sel, err := labels.ValidatedSelectorFromSet(labels.Set{object.ReleaseLabel: m.in.Release.Name})
	if err != nil {
		return all
	}
	keys := []listKey{{GVR: namespacesGVR, Selector: sel.String()}}
	names := []string{m.in.Namespace}
	for i, o := range m.in.Objects {
		if m.res[i].Namespaced {
			names = append(names, o.Object.GetNamespace())
		}
	}
	for _, ns := range names {
		if k := (listKey{GVR: namespacesGVR, Name: ns}); ns != "" && !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	return keys
}

func (m *maker) needsNamespace() bool {
	ref := namespaceRef(m.in.Namespace)
	return m.in.Namespace != "" && m.live.get(ref) == nil && !m.declared[ref]
}

// TargetNamespaceOrigin is the origin of the target namespace's step in a
// plan that creates it though the composition does not declare it.
const TargetNamespaceOrigin = "release.toml target.namespace"

func targetNamespace(in Input) object.Declared {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace"}}
	u.SetName(in.Namespace)
	u.SetLabels(map[string]string{object.ReleaseLabel: in.Release.Name})
	return object.Declared{Origin: TargetNamespaceOrigin, Object: u}
}

// steps plans every object in parallel, results written by index.
func (m *maker) steps(ctx context.Context) ([]Step, error) {
	steps := make([]Step, len(m.in.Objects))
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(m.opts.Parallel)
	for i := range m.in.Objects {
		g.Go(func() error {
			s, err := m.step(ctx, i)
			steps[i] = s
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	deletes, kept := m.prunes()
	m.kept = kept
	return append(steps, deletes...), nil
}

func (m *maker) assemble(id kube.Identity, steps []Step) (*Plan, error) {
	m.dependencies(steps)
	waves, err := graph.Waves(nodes(steps))
	if err != nil {
		return nil, fmt.Errorf("order the plan: %w", err)
	}
	p := &Plan{
		Schema:      Schema,
		Release:     m.in.Release,
		Target:      Target{Server: id.Server, Context: id.Context, Namespace: m.in.Namespace, ClusterUID: id.ClusterUID},
		Environment: m.in.Environment, Capabilities: m.in.Capabilities,
		Namespaces: written(steps),
		Steps:      steps,
		Waves:      waves,
		Kept:       m.kept,
	}
	if err := Validate(p); err != nil {
		return nil, fmt.Errorf("internal error: the plan breaks its invariants: %w", err)
	}
	return p, nil
}
