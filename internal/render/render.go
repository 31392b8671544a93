package render

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/pynenc/piceli/internal/graph"
	"github.com/pynenc/piceli/internal/object"
)

// SecretKeysAnnotation lists, comma-separated and sorted, the keys of a
// Secret. Encoded Secrets carry it instead of their values.
const SecretKeysAnnotation = "piceli.dev/secret-keys"

// Options says how objects are rendered.
type Options struct {
	// Namespace is given to every namespaced object that names none.
	// Empty leaves namespaces as declared.
	Namespace string
	// Release, when set, is written into object.ReleaseLabel on every object.
	Release string
}

// Objects returns the desired objects of a composition in apply order, with
// their origins and dependencies, Secret values included (they are redacted
// when encoded): by stage (graph.Order), then group, kind, namespace and
// name. Inputs are not modified. Two objects with the same identity are an
// error naming both origins; a name or namespace not valid for its kind
// (object.CheckNames) is an error naming the origin and the key.
func Objects(in []object.Declared, opts Options) ([]object.Declared, error) {
	scopes := crdScopes(in)
	out := make([]object.Declared, len(in))
	seen := map[object.Ref]string{}
	for i, o := range in {
		u := clean(o.Object)
		if namespaced(u, scopes) && u.GetNamespace() == "" {
			u.SetNamespace(opts.Namespace)
		}
		if opts.Release != "" {
			setLabel(u, object.ReleaseLabel, opts.Release)
		}
		if err := object.CheckNames(u); err != nil {
			return nil, fmt.Errorf("%s: %w", o.Origin, err)
		}
		ref := object.RefOf(u)
		if prev, dup := seen[ref]; dup {
			return nil, fmt.Errorf("%s is declared twice: by %s and by %s", ref, prev, o.Origin)
		}
		seen[ref] = o.Origin
		out[i] = object.Declared{Origin: o.Origin, DependsOn: o.DependsOn, Object: u}
	}
	Sort(out)
	return out, nil
}

// Manifests returns the objects' manifests, in order.
func Manifests(objs []object.Declared) []*unstructured.Unstructured {
	out := make([]*unstructured.Unstructured, len(objs))
	for i, o := range objs {
		out[i] = o.Object
	}
	return out
}

// Sort puts objects in apply order, the order Objects returns: by stage,
// then group, kind, namespace and name. Each object's key is read once.
func Sort(objs []object.Declared) {
	keyed := make([]keyedObject, len(objs))
	for i, o := range objs {
		ref := object.RefOf(o.Object)
		keyed[i] = keyedObject{rank: graph.StageOf(ref.Group, ref.Kind).Rank(), ref: ref, o: o}
	}
	slices.SortStableFunc(keyed, func(a, b keyedObject) int {
		return cmp.Or(cmp.Compare(a.rank, b.rank), cmp.Compare(a.ref.Group, b.ref.Group), cmp.Compare(a.ref.Kind, b.ref.Kind),
			cmp.Compare(a.ref.Namespace, b.ref.Namespace), cmp.Compare(a.ref.Name, b.ref.Name))
	})
	for i, k := range keyed {
		objs[i] = k.o
	}
}

// keyedObject is an object with its sort key.
type keyedObject struct {
	rank int
	ref  object.Ref
	o    object.Declared
}

// namespaced decides an object's scope without a cluster: built-in kinds
// by rule, custom resources by a CRD in the same composition, anything
// else namespaced (discovery checks it at plan time).
func namespaced(u *unstructured.Unstructured, crdScopes map[schema.GroupKind]bool) bool {
	gk := u.GroupVersionKind().GroupKind()
	if cluster, ok := crdScopes[gk]; ok {
		return !cluster
	}
	return !graph.KnownClusterScoped(gk.Group, gk.Kind)
}

// crdScopes maps each kind defined by a CRD in the composition to whether
// it is cluster-scoped.
func crdScopes(in []object.Declared) map[schema.GroupKind]bool {
	scopes := map[schema.GroupKind]bool{}
	for _, o := range in {
		gk := o.Object.GroupVersionKind().GroupKind()
		if gk.Group != "apiextensions.k8s.io" || gk.Kind != "CustomResourceDefinition" {
			continue
		}
		group, _, _ := unstructured.NestedString(o.Object.Object, "spec", "group")
		kind, _, _ := unstructured.NestedString(o.Object.Object, "spec", "names", "kind")
		scope, _, _ := unstructured.NestedString(o.Object.Object, "spec", "scope")
		scopes[schema.GroupKind{Group: group, Kind: kind}] = strings.EqualFold(scope, "Cluster")
	}
	return scopes
}

func setLabel(u *unstructured.Unstructured, key, value string) {
	labels := u.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels[key] = value
	u.SetLabels(labels)
}
