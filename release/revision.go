package release

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/history"
	"github.com/pynenc/piceli/internal/object"
	planner "github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/secret"
)

// revisionObjects turns a revision back into desired objects, values of
// Secrets included: the one place that rebuilds a revision's Secrets, for a
// rollback plan and for the state a compensation restores.
//
// A revision keeps Secret values only as keyed digests. A declared secret
// gets the store version the revision used; a Secret the composition gave
// literally is taken from current (the composition now) when it digests the
// same, and is an error naming it otherwise. The versions used are returned
// with the objects.
func revisionObjects(rev *history.Revision, current []object.Declared, key []byte, store *secret.Store) ([]object.Declared, map[string]*secret.Version, error) {
	dig := planner.Digester{Key: key}
	now := map[object.Ref]*unstructured.Unstructured{}
	for _, o := range current {
		now[object.RefOf(o.Object)] = o.Object
	}
	origin := fmt.Sprintf("revision %d", rev.Number)
	out := make([]object.Declared, 0, len(rev.Objects))
	versions := map[string]*secret.Version{}
	for _, o := range rev.Objects {
		u := &unstructured.Unstructured{Object: o.Manifest}
		if object.IsSecretRef(o.Ref) {
			var err error
			if u, err = revisionSecret(rev, o, now[o.Ref], dig, store, versions); err != nil {
				return nil, nil, fmt.Errorf("%s of %s: %w", o.Ref, origin, err)
			}
		}
		out = append(out, object.Declared{Origin: origin, Object: u.DeepCopy()})
	}
	secret.Inject(out, versions, key)
	return out, versions, nil
}

// revisionSecret returns the Secret a revision applied, values included.
func revisionSecret(rev *history.Revision, o history.Object, cur *unstructured.Unstructured, dig planner.Digester, store *secret.Store, versions map[string]*secret.Version) (*unstructured.Unstructured, error) {
	if n, ok := rev.Secrets[o.Ref.Name]; ok {
		v, err := store.Load(o.Ref.Name, n)
		if err != nil {
			return nil, fmt.Errorf("load secret version %d: %w", n, err)
		}
		versions[o.Ref.Name] = v
		return &unstructured.Unstructured{Object: o.Manifest}, nil
	}
	if cur == nil || dig.OfSealed(cur) != dig.Of(o.Manifest) {
		return nil, fmt.Errorf("it had other values than the composition has now, and literal secret values are not kept, so it cannot be rolled back")
	}
	return cur, nil
}

// previousObjects returns the objects of the release's latest revision, the
// state a compensation restores, keyed by reference. A Secret whose earlier
// values are not kept is left out, so its undo is reported instead of half
// done. A damaged latest revision (checkRevision) is refused with an error
// matching ErrRevisionDamaged: nothing is restored from it.
func (s *session) previousObjects() (map[object.Ref]*unstructured.Unstructured, error) {
	rev, err := history.Latest(s.r.StateDir())
	if err != nil || rev == nil {
		return map[object.Ref]*unstructured.Unstructured{}, err
	}
	if err := checkRevision(s.r.StateDir(), s.key, rev); err != nil {
		return nil, err
	}
	out := map[object.Ref]*unstructured.Unstructured{}
	store := secret.View(s.r.StateDir())
	for _, o := range rev.Objects {
		one := &history.Revision{Number: rev.Number, Secrets: rev.Secrets, Objects: []history.Object{o}}
		objs, _, err := revisionObjects(one, s.objects, s.key, store)
		if err != nil {
			continue // a Secret whose values are gone: its undo is reported
		}
		out[o.Ref] = objs[0].Object
	}
	return out, nil
}
