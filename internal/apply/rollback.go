package apply

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/compose"
	"github.com/pynenc/piceli/internal/history"
	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/secret"
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
// A revision keeps Secret values only as keyed digests: a declared secret
// gets the store version the revision used; a Secret the composition gave
// literally is taken from the current composition when it digests the
// same, and is an error naming it otherwise. The secret versions used are
// returned with the objects.
func RevisionObjects(rev *history.Revision, current []compose.Object, dig plan.Digester, store *secret.Store) ([]compose.Object, map[string]*secret.Version, error) {
	now := map[object.Ref]*unstructured.Unstructured{}
	for _, o := range current {
		now[object.RefOf(o.Object)] = o.Object
	}
	origin := fmt.Sprintf("revision %d", rev.Number)
	out := make([]compose.Object, 0, len(rev.Objects))
	versions := map[string]*secret.Version{}
	for _, o := range rev.Objects {
		u := &unstructured.Unstructured{Object: o.Manifest}
		if o.Ref.Kind == "Secret" && o.Ref.Group == "" {
			var err error
			if u, err = revisionSecret(rev, o, now[o.Ref], dig, store, versions); err != nil {
				return nil, nil, fmt.Errorf("%s of %s: %w", o.Ref, origin, err)
			}
		}
		out = append(out, compose.Object{Origin: origin, Object: u.DeepCopy()})
	}
	secret.Inject(out, versions, dig.Key)
	return out, versions, nil
}

// revisionSecret returns the Secret a revision applied, values included.
func revisionSecret(rev *history.Revision, o history.Object, cur *unstructured.Unstructured, dig plan.Digester, store *secret.Store, versions map[string]*secret.Version) (*unstructured.Unstructured, error) {
	if n, ok := rev.Secrets[o.Ref.Name]; ok {
		v, err := store.Load(o.Ref.Name, n)
		if err != nil {
			return nil, fmt.Errorf("load secret version %d: %w", n, err)
		}
		versions[o.Ref.Name] = v
		return &unstructured.Unstructured{Object: o.Manifest}, nil
	}
	if cur == nil || dig.Of(dig.Sealed(cur)) != dig.Of(o.Manifest) {
		return nil, fmt.Errorf("it had other values than the composition has now, and literal secret values are not kept, so it cannot be rolled back")
	}
	return cur, nil
}
