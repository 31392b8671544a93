package apply

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/progress"
)

// errLeft marks an undo that was skipped on purpose; its message says why.
var errLeft = errors.New("left as is")

// compensate undoes the steps this run applied, newest wave first: created
// objects are deleted (only while they keep the UID this run gave them),
// updated ones are restored to the release's previous revision (only while
// nobody changed the fields this run wrote). What cannot be undone safely is
// reported, never clobbered.
//
// redo lists undos a crash left in doubt (a resumed compensation); they are
// done again first, which is harmless: the delete of an object already gone
// succeeds, and the restore of a restored one is refused as changed.
//
// Only the steps of this run's plan are undone, and an update is restored
// only to the object of the same reference in the previous revision; when
// Input.Previous refuses that revision (damaged), no update is restored and
// each says why, while created objects are still deleted.
func (r *runner) compensate(ctx context.Context, cause error, redo ...int) error {
	notes, err := r.settleInDoubt(ctx)
	if err != nil {
		return errors.Join(cause, err)
	}
	if err := r.append(journal.Record{Type: journal.CompensateStarted}); err != nil {
		return errors.Join(cause, err)
	}
	prev := r.previousObjects()
	for _, i := range redo {
		note, err := r.undoRecorded(ctx, i, prev)
		if err != nil {
			return errors.Join(cause, err)
		}
		notes = appendNote(notes, note)
	}
	for _, i := range r.appliedNewestFirst() {
		note, err := r.undoStep(ctx, i, prev)
		if err != nil {
			return errors.Join(cause, err)
		}
		notes = appendNote(notes, note)
	}
	if err := r.append(journal.Record{Type: journal.Compensated}); err != nil {
		return errors.Join(cause, err)
	}
	return &CompensatedError{Cause: cause, Notes: notes}
}

func appendNote(notes []string, note string) []string {
	if note == "" {
		return notes
	}
	return append(notes, note)
}

// errInterruptedUndo is the cause reported by a resumed compensation: the
// journal does not keep why the run failed.
var errInterruptedUndo = errors.New("it was interrupted while undoing its changes")

// resumeCompensation finishes the compensation of a run that a crash
// interrupted while undoing its steps, instead of applying them again.
func (r *runner) resumeCompensation(ctx context.Context, st journal.State) error {
	var redo []int
	for i, s := range st.Steps {
		if s.Status == journal.StepCompensating {
			r.written[i] = written{UID: s.UID, ResourceVersion: s.ResourceVersion}
			redo = append(redo, i)
		}
	}
	slices.Sort(redo)
	return r.compensate(ctx, errInterruptedUndo, redo...)
}

// CompensatedError is a failed run whose changes were undone; Notes lists
// what could not be undone safely and was left as is.
type CompensatedError struct {
	Cause error
	Notes []string
}

func (e *CompensatedError) Error() string {
	msg := fmt.Sprintf("%v; this run's changes were undone", e.Cause)
	for _, n := range e.Notes {
		msg += "\n  " + n
	}
	return msg
}

func (e *CompensatedError) Unwrap() error { return e.Cause }

// appliedNewestFirst lists the steps this run applied in reverse apply
// order.
func (r *runner) appliedNewestFirst() []int {
	var order []int
	for _, w := range r.in.Plan.Waves {
		for _, i := range w.Nodes {
			if r.done[i] {
				order = append(order, i)
			}
		}
	}
	slices.Reverse(order)
	return order
}

// settleInDoubt reads back the writes of this run whose outcome is unknown
// (a timeout, a broken connection), so that one that landed is undone too
// instead of left behind unreported. One that cannot be read back is named
// in a note; only a journal error stops it.
func (r *runner) settleInDoubt(ctx context.Context) ([]string, error) {
	var notes []string
	for _, i := range slices.Sorted(maps.Keys(r.inDoubt)) {
		t := r.targetOf(i)
		ok, w, err := t.landed(ctx)
		if err != nil {
			notes = append(notes, fmt.Sprintf("%s: its write may have been applied and could not be read back (%v); check it by hand", t.step.Ref, err))
			continue
		}
		if err := r.recordSettled(t, i, ok, w); err != nil {
			return nil, err
		}
	}
	return notes, nil
}

// undoStep journals and performs one undo.
func (r *runner) undoStep(ctx context.Context, i int, prev earlier) (string, error) {
	ref := r.in.Plan.Steps[i].Ref
	if err := r.append(journal.Record{Type: journal.CompensateIntent, Step: i, Ref: &ref}); err != nil {
		return "", err
	}
	r.fp.hit(ctx, FailAfterCompIntent)
	return r.undoRecorded(ctx, i, prev)
}

// undoRecorded performs the undo of step i, whose intent is journaled, and
// journals its outcome.
func (r *runner) undoRecorded(ctx context.Context, i int, prev earlier) (string, error) {
	ref := r.in.Plan.Steps[i].Ref
	err := r.undo(ctx, i, prev)
	rec := journal.Record{Type: journal.CompensateOutcome, Step: i, Ref: &ref, Result: journal.ResultApplied}
	note := ""
	if err != nil {
		note = ref.String() + ": " + err.Error()
		rec.Result, rec.Error = journal.ResultSkipped, err.Error()
		if !errors.Is(err, errLeft) {
			rec.Result = journal.ResultFailed
		}
	}
	r.e.emit(progress.Event{Kind: progress.Compensating, Ref: ref.String(), Result: string(rec.Result), Error: rec.Error})
	if jerr := r.append(rec); jerr != nil {
		return "", jerr
	}
	r.fp.hit(ctx, FailAfterCompOutcome)
	return note, nil
}

// undo reverses one applied step.
func (r *runner) undo(ctx context.Context, i int, prev earlier) error {
	t, w := r.targetOf(i), r.written[i]
	switch t.step.Action {
	case plan.Create:
		return undoCreate(ctx, t, w)
	case plan.Update, plan.Adopt, plan.Replace:
		return undoUpdate(ctx, t, w, prev)
	}
	return fmt.Errorf("%w: a %s is not undone; restore it with rollback", errLeft, t.step.Action)
}

func undoCreate(ctx context.Context, t *target, w written) error {
	err := t.delete(ctx, w.UID)
	if apierrors.IsConflict(err) {
		return fmt.Errorf("%w: recreated by someone else since this run created it", errLeft)
	}
	return err
}

func undoUpdate(ctx context.Context, t *target, w written, prev earlier) error {
	old, ok := prev.objects[t.step.Ref]
	switch {
	case prev.refused != nil:
		return fmt.Errorf("%w: not restored, since the revision to restore it from is refused: %v", errLeft, prev.refused)
	case !ok:
		return fmt.Errorf("%w: no earlier revision holds it (or its earlier values), so there is nothing to restore", errLeft)
	}
	ours := t.dig.Of(plan.Touched(t.step.Manifest, t.step.Manifest))
	_, err := t.applyIf(ctx, old, w.UID, w.ResourceVersion, ours)
	if errors.Is(err, ErrChanged) {
		return fmt.Errorf("%w: changed by someone else since this run wrote it", errLeft)
	}
	return err
}

// earlier is what a compensation restores updated objects to: the
// previous revision's objects by reference, or why none are restored.
type earlier struct {
	objects map[object.Ref]*unstructured.Unstructured
	refused error // Input.Previous's error: nothing is restored
}

// previousObjects returns what a compensation restores updated objects to.
func (r *runner) previousObjects() earlier {
	if r.in.Previous == nil {
		return earlier{}
	}
	objs, err := r.in.Previous()
	return earlier{objects: objs, refused: err}
}
