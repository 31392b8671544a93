package render

import (
	"fmt"
	"sort"
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
	sort.SliceStable(out, func(i, j int) bool { return less(out[i].Object, out[j].Object) })
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

// less orders objects by stage, then group, kind, namespace and name.
func less(a, b *unstructured.Unstructured) bool {
	ra, rb := object.RefOf(a), object.RefOf(b)
	sa, sb := graph.StageOf(ra.Group, ra.Kind).Rank(), graph.StageOf(rb.Group, rb.Kind).Rank()
	if sa != sb {
		return sa < sb
	}
	ka := []string{ra.Group, ra.Kind, ra.Namespace, ra.Name}
	kb := []string{rb.Group, rb.Kind, rb.Namespace, rb.Name}
	for i := range ka {
		if ka[i] != kb[i] {
			return ka[i] < kb[i]
		}
	}
	return false
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
