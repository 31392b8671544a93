package kube

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/pynenc/piceli/internal/object"
)

// lookupFunc returns the versions of a kind the cluster serves, keyed by
// version (none when it does not serve the kind), and the discovery failure
// of the kind's group, if any.
type lookupFunc func(schema.GroupKind) (map[string]Resource, error)

// resolve is the pure core of Resolve: CRDs in objs first, lookup for the
// rest (once per kind), scope checked, every error collected.
func resolve(objs []object.Declared, lookup lookupFunc) ([]Resource, error) {
	lookup = memoized(lookup)
	crds, errs := crdKinds(objs)
	out := make([]Resource, len(objs))
	for i, d := range objs {
		if d.Object == nil {
			errs = append(errs, fmt.Errorf("resolve object %d (declared by %s): %w: no object given", i, d.Origin, ErrUnresolved))
			continue
		}
		r, err := resolveObject(d.Object, crds, lookup)
		if err != nil {
			errs = append(errs, &ResolveError{Ref: object.RefOf(d.Object), Origin: d.Origin, Err: err})
			continue
		}
		out[i] = r
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

// memoized is lookup asked once per kind: a release of a thousand
// ConfigMaps asks the mapper once, not a thousand times. Not for
// concurrent use.
func memoized(lookup lookupFunc) lookupFunc {
	type answer struct {
		served map[string]Resource
		err    error
	}
	seen := map[schema.GroupKind]answer{}
	return func(gk schema.GroupKind) (map[string]Resource, error) {
		a, ok := seen[gk]
		if !ok {
			a.served, a.err = lookup(gk)
			seen[gk] = a
		}
		return a.served, a.err
	}
}

// resolveObject resolves one object's kind and version and checks its scope.
func resolveObject(u *unstructured.Unstructured, crds map[schema.GroupKind]crdKind, lookup lookupFunc) (Resource, error) {
	gvk := u.GroupVersionKind()
	if gvk.Kind == "" || gvk.Version == "" {
		return Resource{}, fmt.Errorf("apiVersion %q and kind %q do not name a kind", u.GetAPIVersion(), u.GetKind())
	}
	if crd, ok := crds[gvk.GroupKind()]; ok {
		return crd.resolve(gvk, u)
	}
	served, failure := lookup(gvk.GroupKind())
	r, ok := served[gvk.Version]
	switch {
	case ok:
		return r, checkScope(r, u)
	case failure != nil:
		return Resource{}, fmt.Errorf("no kind %q in %s: %w, and no CRD in the composition defines it", gvk.Kind, gvk.GroupVersion(), failure)
	case len(served) == 0:
		return Resource{}, fmt.Errorf("no kind %q in %s: the cluster does not serve it and no CRD in the composition defines it", gvk.Kind, gvk.GroupVersion())
	}
	return Resource{}, fmt.Errorf("%s: the cluster serves %s", noVersion(gvk), versionList(gvk.GroupKind(), slices.Collect(maps.Keys(served))))
}

// checkScope requires metadata.namespace exactly when the kind is namespaced.
func checkScope(r Resource, u *unstructured.Unstructured) error {
	switch ns := u.GetNamespace(); {
	case r.Namespaced && ns == "":
		return fmt.Errorf("%s is namespaced but metadata.namespace is empty", u.GetKind())
	case !r.Namespaced && ns != "":
		return fmt.Errorf("%s is cluster-scoped but metadata.namespace is %q", u.GetKind(), ns)
	}
	return nil
}

// noVersion says that gvk's version is not served.
func noVersion(gvk schema.GroupVersionKind) string {
	group := fmt.Sprintf("group %q", gvk.Group)
	if gvk.Group == "" {
		group = "the core group"
	}
	return fmt.Sprintf("no version %q of kind %q in %s", gvk.Version, gvk.Kind, group)
}

// versionList spells versions of gk as sorted group/versions, "apps/v1, apps/v1beta2".
func versionList(gk schema.GroupKind, versions []string) string {
	gvs := make([]string, len(versions))
	for i, v := range versions {
		gvs[i] = gk.WithVersion(v).GroupVersion().String()
	}
	slices.Sort(gvs)
	return strings.Join(gvs, ", ")
}
