package kube

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/pynenc/piceli/internal/object"
)

// crdGroupKind is the kind of a CustomResourceDefinition.
var crdGroupKind = schema.GroupKind{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}

// crdKind is what a CRD in the input says about the kind it defines.
type crdKind struct {
	CRD        string   // the CRD's name, e.g. widgets.example.com
	Plural     string   // spec.names.plural
	Namespaced bool     // spec.scope is Namespaced
	Served     []string // versions with served: true, in declared order
}

// crdKinds indexes the kinds defined by the CRDs in objs. A CRD that does
// not say group, kind, plural or a valid scope, or that defines a kind
// another CRD already defines, gives a *ResolveError instead.
func crdKinds(objs []object.Declared) (map[schema.GroupKind]crdKind, []error) {
	kinds := map[schema.GroupKind]crdKind{}
	var errs []error
	for _, d := range objs {
		if d.Object == nil || d.Object.GroupVersionKind().GroupKind() != crdGroupKind {
			continue
		}
		gk, kind, err := parseCRD(d.Object)
		if err == nil {
			err = firstDefinition(kinds, gk)
		}
		if err != nil {
			errs = append(errs, &ResolveError{Ref: object.RefOf(d.Object), Origin: d.Origin, Err: err})
			continue
		}
		kinds[gk] = kind
	}
	return kinds, errs
}

// firstDefinition refuses a second CRD for the same kind.
func firstDefinition(kinds map[schema.GroupKind]crdKind, gk schema.GroupKind) error {
	if prev, ok := kinds[gk]; ok {
		return fmt.Errorf("defines kind %q of group %q, already defined by CustomResourceDefinition/%s", gk.Kind, gk.Group, prev.CRD)
	}
	return nil
}

// parseCRD reads the kind a CRD object defines from its spec.
func parseCRD(u *unstructured.Unstructured) (schema.GroupKind, crdKind, error) {
	group, _, _ := unstructured.NestedString(u.Object, "spec", "group")
	kind, _, _ := unstructured.NestedString(u.Object, "spec", "names", "kind")
	plural, _, _ := unstructured.NestedString(u.Object, "spec", "names", "plural")
	scope, _, _ := unstructured.NestedString(u.Object, "spec", "scope")
	var missing []error
	for _, f := range [][2]string{{"spec.group", group}, {"spec.names.kind", kind}, {"spec.names.plural", plural}} {
		if f[1] == "" {
			missing = append(missing, fmt.Errorf("%s is empty", f[0]))
		}
	}
	if scope != "Namespaced" && scope != "Cluster" {
		missing = append(missing, fmt.Errorf("spec.scope is %q, not Namespaced or Cluster", scope))
	}
	if err := errors.Join(missing...); err != nil {
		return schema.GroupKind{}, crdKind{}, err
	}
	def := crdKind{CRD: u.GetName(), Plural: plural, Namespaced: scope == "Namespaced", Served: servedVersions(u)}
	return schema.GroupKind{Group: group, Kind: kind}, def, nil
}

// servedVersions lists spec.versions[].name with served: true.
func servedVersions(u *unstructured.Unstructured) []string {
	versions, _, _ := unstructured.NestedSlice(u.Object, "spec", "versions")
	var served []string
	for _, v := range versions {
		m, _ := v.(map[string]any)
		name, _, _ := unstructured.NestedString(m, "name")
		on, _, _ := unstructured.NestedBool(m, "served")
		if name != "" && on {
			served = append(served, name)
		}
	}
	return served
}

// resolve maps gvk through the CRD and checks u's scope.
func (k crdKind) resolve(gvk schema.GroupVersionKind, u *unstructured.Unstructured) (Resource, error) {
	for _, v := range k.Served {
		if v == gvk.Version {
			r := Resource{GVR: gvk.GroupVersion().WithResource(k.Plural), Namespaced: k.Namespaced}
			return r, checkScope(r, u)
		}
	}
	if len(k.Served) == 0 {
		return Resource{}, fmt.Errorf("%s: CustomResourceDefinition/%s in the composition serves no version", noVersion(gvk), k.CRD)
	}
	return Resource{}, fmt.Errorf("%s: CustomResourceDefinition/%s in the composition serves %s", noVersion(gvk), k.CRD, versionList(gvk.GroupKind(), k.Served))
}
