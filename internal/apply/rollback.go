package apply

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/compose"
	"github.com/pynenc/piceli/internal/history"
	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/plan"
)

// RollbackTarget returns the revision a rollback goes back to: to, or when
// to is 0 the one before the latest.
func RollbackTarget(stateDir string, to int) (*history.Revision, error) {
	if to > 0 {
		return history.Load(stateDir, to)
	}
	revs, err := history.List(stateDir)
	if err != nil {
		return nil, err
	}
	if len(revs) < 2 {
		return nil, fmt.Errorf("rollback needs an earlier revision: the release has %d", len(revs))
	}
	return &revs[len(revs)-2], nil
}

// RevisionObjects turns a revision back into desired objects for a plan.
// A revision keeps Secret values only as keyed digests, so a Secret is
// taken from the current composition when it digests the same; a Secret
// whose values differ cannot be restored yet and is an error naming it.
func RevisionObjects(rev *history.Revision, current []compose.Object, dig plan.Digester) ([]compose.Object, error) {
	now := map[object.Ref]*unstructured.Unstructured{}
	for _, o := range current {
		now[object.RefOf(o.Object)] = o.Object
	}
	origin := fmt.Sprintf("revision %d", rev.Number)
	out := make([]compose.Object, 0, len(rev.Objects))
	for _, o := range rev.Objects {
		u := &unstructured.Unstructured{Object: o.Manifest}
		if o.Ref.Kind == "Secret" && o.Ref.Group == "" {
			cur := now[o.Ref]
			if cur == nil || dig.Of(dig.Sealed(cur)) != dig.Of(o.Manifest) {
				return nil, fmt.Errorf("%s of %s had other values than the composition has now; earlier secret values are not kept yet, so it cannot be rolled back", o.Ref, origin)
			}
			u = cur
		}
		out = append(out, compose.Object{Origin: origin, Object: u.DeepCopy()})
	}
	return out, nil
}
