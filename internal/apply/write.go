package apply

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/readiness"
)

// ErrChanged is returned when an object changed, between approval and the
// write, in a field the plan sets: the write is refused, not forced.
var ErrChanged = errors.New("changed by someone else since the plan")

// ExistsError refuses a create (or the create half of a replace) whose
// object exists when the step runs: someone else made it since the plan.
// Nothing was written to it: no field, no label, and the run records no
// UID of it, so a compensation never deletes it.
type ExistsError struct {
	UID      string   // the existing object's
	Managers []string // its field managers, from managedFields (subresources aside)
	Err      error    // the server's refusal of the create
}

func (e *ExistsError) Error() string {
	by := "no field manager recorded"
	if len(e.Managers) > 0 {
		by = "managed by " + strings.Join(e.Managers, ", ")
	}
	return fmt.Sprintf("it exists already: someone else created it since the plan (uid %s, %s); it was not written", e.UID, by)
}

func (e *ExistsError) Unwrap() error { return e.Err }

// createOnly is the resourceVersion a create is applied with, which makes
// the server-side apply create the object or fail, atomically: kube-apiserver
// ignores the resourceVersion of an apply that creates an object, and
// refuses (409) one that would change an existing object whose
// resourceVersion differs. No object holds this one: resourceVersions are
// etcd revisions, which are int64 and never get this far.
const createOnly = "9223372036854775807"

// written is what the server returned for a write.
type written struct {
	UID, ResourceVersion string
	Fields               string // target.touched of what the server returned
	// Ready says what the server returned is ready for good
	// (readiness.ReadyForGood): the wave does not read it again to wait
	// for it.
	Ready bool
}

// writtenAs is what a write of t's step left: out, the object the server
// returned.
func (t *target) writtenAs(out *unstructured.Unstructured) written {
	return written{UID: string(out.GetUID()), ResourceVersion: out.GetResourceVersion(), Fields: t.touched(out), Ready: readiness.ReadyForGood(out)}
}

// target is one step's object on the server.
type target struct {
	res       dynamic.ResourceInterface
	step      plan.Step
	desired   *unstructured.Unstructured
	manager   string
	observedF string // the Fields digest the plan observed
	dig       plan.Digester
}

func resourceFor(dyn dynamic.Interface, s plan.Step) dynamic.ResourceInterface {
	gv, _ := schema.ParseGroupVersion(s.APIVersion)
	r := dyn.Resource(gv.WithResource(s.Resource))
	if s.Ref.Namespace != "" {
		return r.Namespace(s.Ref.Namespace)
	}
	return r
}

// write performs a step's action once.
func (t *target) write(ctx context.Context, rv string) (written, error) {
	switch t.step.Action {
	case plan.Create:
		return t.create(ctx)
	case plan.Update, plan.Adopt:
		return t.applyIf(ctx, t.desired, t.step.Observed.UID, rv, t.observedF)
	case plan.Delete:
		return written{}, t.delete(ctx, t.step.Observed.UID)
	case plan.Replace:
		return t.replace(ctx)
	}
	return written{}, fmt.Errorf("no write for action %s", t.step.Action)
}

// create sends the desired object as a server-side apply of the release's
// field manager that can only create it (see createOnly), never forcing.
// When the object exists, nothing is written and the error is an
// *ExistsError naming who manages it.
func (t *target) create(ctx context.Context) (written, error) {
	w, err := t.applyObject(ctx, t.desired, createOnly)
	if apierrors.IsConflict(err) {
		return w, t.existing(ctx, err)
	}
	return w, err
}

// existing explains a refused create by reading the object that is there:
// an *ExistsError; the refusal itself when the object is gone again, and
// with the read's error when it cannot be read.
func (t *target) existing(ctx context.Context, refusal error) error {
	live, err := t.res.Get(ctx, t.step.Ref.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return refusal
	}
	if err != nil {
		return fmt.Errorf("%w; re-read: %w", refusal, err)
	}
	return &ExistsError{UID: string(live.GetUID()), Managers: managers(live), Err: refusal}
}

// managers lists the field managers of u, each once, in managedFields
// order: those of the object itself, not of a subresource (a controller
// writing status is not who made it).
func managers(u *unstructured.Unstructured) []string {
	var out []string
	for _, m := range u.GetManagedFields() {
		if m.Subresource == "" && !slices.Contains(out, m.Manager) {
			out = append(out, m.Manager)
		}
	}
	return out
}

func (t *target) applyObject(ctx context.Context, u *unstructured.Unstructured, rv string) (written, error) {
	obj := u.DeepCopy()
	obj.SetResourceVersion(rv)
	out, err := t.res.Apply(ctx, obj.GetName(), obj, metav1.ApplyOptions{FieldManager: t.manager, Force: len(t.step.Reclaim) > 0})
	if err != nil {
		return written{}, err
	}
	return t.writtenAs(out), nil
}

// applyIf applies obj conditionally on the object still being the one with
// uid and on rv. The UID travels in the apply body, so the server itself
// refuses an object deleted since (it would otherwise create it again) or
// deleted and created again by someone else: ErrChanged, nothing written.
// When the object only moved on (409), it is read again: if the fields the
// plan sets still digest to expect (only status or other managers' fields
// changed), the apply is retried on the new version; otherwise it is
// refused with ErrChanged. A 409 never becomes a delete and recreate.
func (t *target) applyIf(ctx context.Context, obj *unstructured.Unstructured, uid, rv, expect string) (written, error) {
	obj = obj.DeepCopy()
	obj.SetUID(types.UID(uid))
	for attempt := 0; ; attempt++ {
		w, err := t.applyObject(ctx, obj, rv)
		if isUIDRefused(err) {
			return w, fmt.Errorf("%w: it was deleted and created again by someone else (%v)", ErrChanged, err)
		}
		if !apierrors.IsConflict(err) || isFieldConflict(err) || attempt == 4 {
			return w, err
		}
		live, gerr := t.res.Get(ctx, t.step.Ref.Name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(gerr):
			return w, fmt.Errorf("%w: it was deleted, and is not created again", ErrChanged)
		case gerr != nil:
			return w, fmt.Errorf("%w; re-read: %w", err, gerr)
		case string(live.GetUID()) != uid:
			return w, fmt.Errorf("%w: it was deleted and created again by someone else (uid %s, was %s)", ErrChanged, live.GetUID(), uid)
		case t.touched(live) != expect:
			return w, ErrChanged
		}
		rv = live.GetResourceVersion()
	}
}

// isUIDRefused reports whether the server refused an apply because the
// object's UID is not the one in the body (metadata.uid is immutable).
func isUIDRefused(err error) bool {
	var se apierrors.APIStatus
	if !apierrors.IsInvalid(err) || !errors.As(err, &se) || se.Status().Details == nil {
		return false
	}
	for _, c := range se.Status().Details.Causes {
		if c.Field == "metadata.uid" {
			return true
		}
	}
	return false
}

// touched digests live's values at the paths the step's manifest sets.
func (t *target) touched(live *unstructured.Unstructured) string {
	return t.dig.Fields(t.step.Manifest, live)
}

func isFieldConflict(err error) bool {
	var se apierrors.APIStatus
	if !errors.As(err, &se) || se.Status().Details == nil {
		return false
	}
	for _, c := range se.Status().Details.Causes {
		if c.Type == metav1.CauseTypeFieldManagerConflict {
			return true
		}
	}
	return false
}

// delete removes the object only while it still has the given UID; an
// object already gone counts as deleted.
func (t *target) delete(ctx context.Context, uid string) error {
	u := types.UID(uid)
	policy := metav1.DeletePropagationBackground
	err := t.res.Delete(ctx, t.step.Ref.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &u}, PropagationPolicy: &policy})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// replace deletes the observed object, waits until it is gone, and creates
// the desired one; like a create, that fails on an object someone else
// made meanwhile.
func (t *target) replace(ctx context.Context) (written, error) {
	if err := t.delete(ctx, t.step.Observed.UID); err != nil {
		return written{}, err
	}
	if err := t.waitGone(ctx, t.step.Observed.UID); err != nil {
		return written{}, err
	}
	return t.create(ctx)
}

// waitGone waits until the object of uid is gone; when ctx ends first, its
// error says which finalizers, if any, still held the object.
func (t *target) waitGone(ctx context.Context, uid string) error {
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	var held []string
	for {
		live, err := t.res.Get(ctx, t.step.Ref.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) || (err == nil && string(live.GetUID()) != uid) {
			return nil
		}
		if err == nil {
			held = live.GetFinalizers()
		}
		select {
		case <-ctx.Done():
			if len(held) > 0 {
				return fmt.Errorf("wait for the old object to go: %s: %w", readiness.Deleting(held), ctx.Err())
			}
			return fmt.Errorf("wait for the old object to go: %w", ctx.Err())
		case <-tick.C:
		}
	}
}
