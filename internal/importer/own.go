package importer

import (
	"bytes"
	"encoding/json"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/value"
)

// systemManagers are the control plane's field managers: what they write
// (a Deployment's revision annotation, a claim's bound volume) is the
// server's, not the object's own.
var systemManagers = map[string]bool{
	"kube-controller-manager": true, "kube-scheduler": true, "kubelet": true, "kube-apiserver": true,
}

// clientSideApply is the manager of kubectl's client-side apply, whose
// Update records every field the server defaulted too; its
// last-applied-configuration annotation says what was applied.
const clientSideApply = "kubectl-client-side-apply"

// owner is one source of a live object's own fields: a manager's field
// set and, for kubectl's client-side apply, the object it last applied.
// The set says where a field is atomic (owned whole); the applied object
// says which fields the user wrote, defaults aside.
type owner struct {
	set     *fieldpath.Set // nil below where the set says nothing
	tree    any            // the applied object at this level
	applied bool           // tree is set: only what it holds is owned
}

// owners returns the sources of u's own fields and whether anyone but the
// control plane wrote u. With no managedFields at all, ok is true and
// owners is nil: nothing tells defaults apart, and u is kept whole.
func owners(u *unstructured.Unstructured) (out []owner, ok bool) {
	entries := u.GetManagedFields()
	if len(entries) == 0 {
		return nil, true
	}
	applied := lastAppliedTree(u)
	for _, e := range entries {
		if e.Subresource == "status" || systemManagers[e.Manager] || e.FieldsV1 == nil {
			continue
		}
		ok = true
		set := &fieldpath.Set{}
		if err := set.FromJSON(bytes.NewReader(e.FieldsV1.Raw)); err != nil {
			return nil, true // unreadable: keep everything
		}
		o := owner{set: set}
		if e.Manager == clientSideApply && e.Operation == metav1.ManagedFieldsOperationUpdate && applied != nil {
			o.tree, o.applied = applied, true
		}
		out = append(out, o)
	}
	return out, ok
}

// lastAppliedTree decodes kubectl's last-applied-configuration, or nil.
func lastAppliedTree(u *unstructured.Unstructured) any {
	raw := u.GetAnnotations()[lastApplied]
	if raw == "" {
		return nil
	}
	var tree map[string]any
	if err := json.Unmarshal([]byte(raw), &tree); err != nil {
		return nil
	}
	return tree
}

// ownFields prunes u, in place, to the fields some owner set: defaults the
// server filled in and fields only the control plane wrote go. Of the
// metadata only labels and annotations are pruned; the rest is cleaned
// separately.
func ownFields(u *unstructured.Unstructured, os []owner) {
	if os == nil {
		return
	}
	kept, _ := keep(u.Object, os).(map[string]any)
	if kept == nil {
		kept = map[string]any{}
	}
	meta, _ := u.Object["metadata"].(map[string]any)
	own, _ := kept["metadata"].(map[string]any)
	for _, f := range []string{"labels", "annotations"} {
		if v, ok := own[f]; ok {
			meta[f] = v
		} else {
			delete(meta, f)
		}
	}
	kept["apiVersion"], kept["kind"], kept["metadata"] = u.Object["apiVersion"], u.Object["kind"], meta
	u.Object = kept
}

// keep returns the part of v that some owner set, or nil when none did.
func keep(v any, os []owner) any {
	if len(os) == 0 {
		return nil
	}
	switch t := v.(type) {
	case map[string]any:
		return keepMap(t, os)
	case []any:
		return keepList(t, os)
	}
	return v
}

// keepMap keeps the fields of m some owner set.
func keepMap(m map[string]any, os []owner) any {
	out := map[string]any{}
	for k, c := range m {
		pe := fieldpath.PathElement{FieldName: &k}
		child, whole := descend(os, pe, func(tree any) (any, bool) {
			t, ok := tree.(map[string]any)
			if !ok {
				return nil, false
			}
			sub, ok := t[k]
			return sub, ok
		})
		switch {
		case whole:
			out[k] = c
		case len(child) > 0:
			if kept := keep(c, child); kept != nil {
				out[k] = kept
			}
		}
	}
	return out
}

// keepList keeps the items of l some owner set.
func keepList(l []any, os []owner) any {
	var out []any
	for i, item := range l {
		var child []owner
		whole := false
		for _, o := range os {
			c, w := o.item(l, i, item)
			whole = whole || w
			if c != nil {
				child = append(child, *c)
			}
		}
		switch {
		case whole:
			out = append(out, item)
		case len(child) > 0:
			if kept := keep(item, child); kept != nil {
				out = append(out, kept)
			}
		}
	}
	if out == nil {
		return nil
	}
	return out
}

// descend returns the owners of a map field and whether one of them owns
// it whole: a leaf of its field set (an atomic field) that the applied
// object, when there is one, holds.
func descend(os []owner, pe fieldpath.PathElement, sub func(any) (any, bool)) ([]owner, bool) {
	var out []owner
	for _, o := range os {
		var child owner
		if o.applied {
			t, ok := sub(o.tree)
			if !ok {
				continue
			}
			child = owner{tree: t, applied: true}
		}
		c, whole := o.setChild(pe)
		if whole || (o.applied && !isContainer(child.tree)) {
			return nil, true
		}
		if c == nil && !o.applied {
			continue
		}
		child.set = c
		out = append(out, child)
	}
	return out, false
}

// setChild returns the field set below pe, or whether the set owns pe
// whole. A field with children in the set is owned in those children
// only ("." marks the field itself); a leaf is owned whole.
func (o owner) setChild(pe fieldpath.PathElement) (*fieldpath.Set, bool) {
	if o.set == nil {
		return nil, false
	}
	if c, ok := o.set.Children.Get(pe); ok {
		return c, false
	}
	return nil, o.set.Members.Has(pe)
}

// item returns the owner of list item i and whether o owns it whole.
func (o owner) item(l []any, i int, item any) (*owner, bool) {
	var child owner
	if o.applied {
		t, found, whole := o.appliedItem(l, i, item)
		if whole {
			return nil, true
		}
		if !found {
			return nil, false
		}
		child = owner{tree: t, applied: true}
	}
	c, whole := o.setItem(i, item)
	if whole || (o.applied && !isContainer(child.tree)) {
		return nil, true
	}
	if c == nil && !o.applied {
		return nil, false
	}
	child.set = c
	return &child, false
}

// setItem returns the field set of list item i, or whether the set owns
// it whole.
func (o owner) setItem(i int, item any) (*fieldpath.Set, bool) {
	if o.set == nil {
		return nil, false
	}
	var found *fieldpath.Set
	o.set.Children.Iterate(func(pe fieldpath.PathElement) {
		if c, ok := o.set.Children.Get(pe); ok && matches(pe, i, item) {
			found = c
		}
	})
	if found != nil {
		return found, false
	}
	whole := false
	o.set.Members.Iterate(func(pe fieldpath.PathElement) {
		whole = whole || matches(pe, i, item)
	})
	return nil, whole
}

// appliedItem finds a live list item in the applied list: by position
// when the lists are as long, else by name. A list it cannot match is
// owned whole, so that nothing of it is lost.
func (o owner) appliedItem(l []any, i int, item any) (tree any, found, whole bool) {
	applied, ok := o.tree.([]any)
	if !ok {
		return nil, false, true
	}
	if len(applied) == len(l) {
		return applied[i], true, false
	}
	name, _ := nameOf(item)
	for _, a := range applied {
		if n, ok := nameOf(a); ok && n == name {
			return a, true, false
		}
	}
	return nil, false, true
}

func nameOf(v any) (string, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return "", false
	}
	n, ok := m["name"].(string)
	return n, ok
}

func isContainer(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return true
	}
	return false
}

// matches reports whether a field set's list element pe names item i.
func matches(pe fieldpath.PathElement, i int, item any) bool {
	switch {
	case pe.Index != nil:
		return *pe.Index == i
	case pe.Value != nil:
		return value.Equals(*pe.Value, value.NewValueInterface(item))
	case pe.Key != nil:
		m, ok := item.(map[string]any)
		if !ok {
			return false
		}
		for _, f := range *pe.Key {
			v, ok := m[f.Name]
			if !ok || !value.Equals(f.Value, value.NewValueInterface(v)) {
				return false
			}
		}
		return true
	}
	return false
}

// systemOnly reports whether only the control plane wrote u: an object it
// made for another (a claim of a StatefulSet's template, a namespace's
// CA bundle).
func systemOnly(u *unstructured.Unstructured) bool {
	_, ok := owners(u)
	return !ok
}
