package release

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/pynenc/piceli/internal/history"
	planner "github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/plan"
)

// ErrRevisionDamaged is matched by the error of a rollback or a
// compensation refused because the revision it would apply is damaged:
// its seal fails, the plan it records is not stored or fails its own
// seal, or its objects are not what that plan applied.
var ErrRevisionDamaged = errors.New("damaged revision")

// trustedRevision loads revision n and checks that it may be applied
// (checkRevision).
func trustedRevision(stateDir string, key []byte, n int) (*history.Revision, error) {
	rev, err := history.Load(stateDir, n)
	if err != nil {
		return nil, err
	}
	return rev, checkRevision(stateDir, key, rev)
}

// checkRevision is what a revision must pass before any of its objects
// is written again, by a rollback or a compensation: its seal holds under
// the release's digest key, the plan it records is stored and passes its
// own seal, and its objects are exactly the objects that approved plan
// applied (every step but deletes, in order, manifests alike). So what
// goes back to the cluster is what a person approved once, whatever was
// edited in the state directory since.
func checkRevision(stateDir string, key []byte, rev *history.Revision) error {
	if err := rev.Verify(key); err != nil {
		return damaged(rev.Number, err)
	}
	p, _, err := planner.Load(stateDir, rev.Plan)
	if err != nil {
		return damaged(rev.Number, fmt.Errorf("its plan %s cannot be checked: %w", plan.ShortHash(rev.Plan), err))
	}
	if err := sameObjects(rev, p); err != nil {
		return damaged(rev.Number, fmt.Errorf("its objects are not those its plan %s applied: %w", plan.ShortHash(rev.Plan), err))
	}
	return nil
}

// damaged wraps why revision n may not be applied.
func damaged(n int, err error) error {
	return fmt.Errorf("revision %d is damaged, so nothing of it is applied: %w (%w)", n, err, ErrRevisionDamaged)
}

// sameObjects checks that rev's objects are p's steps but its deletes, in
// order, with the same references, resources and manifests.
func sameObjects(rev *history.Revision, p *plan.Plan) error {
	var want []history.Object
	for _, s := range p.Steps {
		if s.Action != plan.Delete {
			want = append(want, history.Object{Ref: s.Ref, APIVersion: s.APIVersion, Resource: s.Resource, Manifest: s.Manifest})
		}
	}
	if len(rev.Objects) != len(want) {
		return fmt.Errorf("it holds %d objects, the plan applied %d", len(rev.Objects), len(want))
	}
	for i, o := range rev.Objects {
		w := want[i]
		switch {
		case o.Ref != w.Ref:
			return fmt.Errorf("object %d is %s, where the plan applied %s", i, o.Ref, w.Ref)
		case o.APIVersion != w.APIVersion || o.Resource != w.Resource || !sameJSON(o.Manifest, w.Manifest):
			return fmt.Errorf("%s is not the manifest the plan applied", o.Ref)
		}
	}
	return nil
}

// sameJSON compares two decoded manifests by their JSON encodings, so
// that numbers decoded alike compare alike.
func sameJSON(a, b map[string]any) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(ja, jb)
}
