package apply

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/plan"
)

// landed reads the cluster to decide whether an in-doubt step's write took
// effect before the run was interrupted. It writes nothing: a dry-run apply
// shows whether the release's desired fields are already in place.
func (t *target) landed(ctx context.Context) (bool, written, error) {
	live, err := t.res.Get(ctx, t.step.Ref.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return t.step.Action == plan.Delete, written{}, nil
	}
	if err != nil {
		return false, written{}, fmt.Errorf("read %s: %w", t.step.Ref, err)
	}
	w := written{UID: string(live.GetUID()), ResourceVersion: live.GetResourceVersion(), Fields: t.touched(live)}
	switch t.step.Action {
	case plan.Delete:
		return w.UID != t.step.Observed.UID, w, nil
	case plan.Replace:
		if w.UID == t.step.Observed.UID {
			return false, w, nil
		}
	}
	ok, err := t.inPlace(ctx, live)
	return ok, w, err
}

// inPlace reports whether live already holds the desired state as written
// by this release's field manager.
func (t *target) inPlace(ctx context.Context, live *unstructured.Unstructured) (bool, error) {
	if !appliedBy(live, t.manager) {
		return false, nil
	}
	result, err := t.res.Apply(ctx, t.desired.GetName(), t.desired, metav1.ApplyOptions{FieldManager: t.manager, DryRun: []string{metav1.DryRunAll}})
	if isFieldConflict(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("dry-run %s: %w", t.step.Ref, err)
	}
	return len(plan.Diff(live.Object, result.Object)) == 0, nil
}

// appliedBy reports whether manager has applied fields of u.
func appliedBy(u *unstructured.Unstructured, manager string) bool {
	for _, m := range u.GetManagedFields() {
		if m.Manager == manager && m.Operation == metav1.ManagedFieldsOperationApply {
			return true
		}
	}
	return false
}
