package plan

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/pynenc/piceli/internal/graph"
	"github.com/pynenc/piceli/internal/object"
)

// ErrRefused marks a plan error caused by the server rejecting a declared
// object in a dry-run: bad input, not a failure of the cluster.
var ErrRefused = errors.New("the server refuses it")

// ErrNotAllowed marks a plan error caused by a declared object that
// release.toml does not allow (a namespace it does not name, an image not
// pinned when pinning is required): bad input, refused before any change.
var ErrNotAllowed = errors.New("release.toml does not allow it")

var namespacesGVR = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}

// step plans one declared object: from what an earlier plan or the
// release's records already establish when they can, else through a
// dry-run of the release's apply.
func (m *maker) step(ctx context.Context, i int) (Step, error) {
	s := m.newStep(i)
	live := m.live.get(s.Ref)
	a, confirmed := m.confirmed(s, live)
	switch {
	case confirmed:
		return a, nil
	case live != nil && m.unchangedSince(i, s, live):
		return m.unchanged(i, s, live), nil
	case live == nil && m.inAbsentNamespace(i):
		// A dry-run apply could only answer that the namespace is not found.
		s.Action, s.Observed = Create, Observed{Absent: true}
		return m.validateElsewhere(ctx, i, s)
	}
	result, err := m.dryRun(ctx, i, false)
	if live == nil {
		return m.create(ctx, i, s, err)
	}
	s.Observed = m.observe(m.in.Objects[i].Object, live)
	if cs := m.reclaimable(conflictsOf(err), live); cs != nil {
		s.Reclaim = cs
		result, err = m.dryRun(ctx, i, true)
	}
	return m.change(s, live, result, err)
}

// newStep is object i's step before the cluster is compared: what it is,
// its sealed manifest and that manifest's digest (the approved step's,
// under Options.ApprovedObjects).
func (m *maker) newStep(i int) Step {
	o, r := m.in.Objects[i], m.res[i]
	ref := object.RefOf(o.Object)
	s := Step{
		Ref:        ref,
		APIVersion: o.Object.GetAPIVersion(),
		Resource:   r.GVR.Resource,
		Stage:      graph.StageOf(ref.Group, ref.Kind),
		Origin:     o.Origin,
		Warnings:   imageWarnings(o.Object),
		NoWait:     noWait(o.Object, m.in.Wait),
	}
	if a, ok := m.approved[ref]; ok && m.opts.ApprovedObjects && a.Desired != "" {
		s.Manifest, s.Desired = a.Manifest, a.Desired // o.Object is a copy of it
		return s
	}
	s.Manifest = m.dig.Sealed(o.Object)
	s.Desired = m.dig.Of(s.Manifest)
	return s
}

// create plans an absent object. A dry-run that cannot find the object's
// namespace (this plan creates it) or its resource (a CRD in this plan)
// is no refusal; the object is then judged in another namespace
// (validateElsewhere).
func (m *maker) create(ctx context.Context, i int, s Step, err error) (Step, error) {
	s.Action, s.Observed = Create, Observed{Absent: true}
	switch {
	case err == nil:
		return s, nil
	case !apierrors.IsNotFound(err):
		return s, refusal(s, err)
	}
	return m.validateElsewhere(ctx, i, s)
}

// refusal is the error of a step whose object the server refuses.
func refusal(s Step, err error) error {
	return fmt.Errorf("plan %s (declared by %s): %w: %w", s.Ref, s.Origin, ErrRefused, err)
}

// change plans an object that exists: conflicts, immutable fields, or the
// fields the apply would change.
func (m *maker) change(s Step, live, result *unstructured.Unstructured, err error) (Step, error) {
	s.Action = Update
	if live.GetLabels()[object.ReleaseLabel] != m.in.Release.Name {
		s.Action = Adopt
	}
	if cs := conflictsOf(err); cs != nil {
		s.Conflicts, s.Blocked = withOperations(cs, live), conflictReason(cs)
		return s, nil
	}
	if f := immutableField(err); f != "" {
		return m.replace(s, f), nil
	}
	if apierrors.IsInvalid(err) || apierrors.IsBadRequest(err) {
		return s, refusal(s, err)
	}
	if err != nil {
		return s, fmt.Errorf("plan %s (declared by %s): dry-run apply: %w", s.Ref, s.Origin, err)
	}
	s.Changes = Diff(live.Object, result.Object)
	if len(s.Changes) == 0 && s.Action == Update {
		s.Action = NoOp
	}
	return s, nil
}

func (m *maker) replace(s Step, field string) Step {
	s.Action = Replace
	s.Changes = []Change{{Path: field, Kind: Changed}}
	if !m.opts.AllowReplace {
		s.Blocked = "immutable field " + field + " changes: the object must be deleted and created again, which a plan does only when replacement is allowed"
	}
	return s
}

// observe records what the plan saw of a live object.
func (m *maker) observe(desired, live *unstructured.Unstructured) Observed {
	return Observed{
		UID:             string(live.GetUID()),
		ResourceVersion: live.GetResourceVersion(),
		Generation:      live.GetGeneration(),
		Fields:          m.dig.Fields(m.dig.sealedView(desired), live),
	}
}

// dryRun asks the server what applying object i would store, without
// storing it: defaults, admission and field ownership all take part.
// force takes every field the object sets (a reclaim, see reclaimable).
func (m *maker) dryRun(ctx context.Context, i int, force bool) (*unstructured.Unstructured, error) {
	o, r := m.in.Objects[i].Object, m.res[i]
	ri := m.c.Dynamic.Resource(r.GVR)
	opts := metav1.ApplyOptions{FieldManager: m.in.Release.FieldManager, DryRun: []string{metav1.DryRunAll}, Force: force}
	if r.Namespaced {
		return ri.Namespace(o.GetNamespace()).Apply(ctx, o.GetName(), o, opts)
	}
	return ri.Apply(ctx, o.GetName(), o, opts)
}
