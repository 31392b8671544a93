package importer

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/render"
)

// lastApplied is the annotation kubectl's client-side apply keeps the
// applied object in; for a Secret it holds its values.
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// Builder labels (app.LabelName, LabelPartOf, LabelManagedBy): the Secret
// builder adds them to every Secret it declares.
const (
	labelName      = "app.kubernetes.io/name"
	labelPartOf    = "app.kubernetes.io/part-of"
	labelManagedBy = "app.kubernetes.io/managed-by"
)

// Normal returns objs as the import round trip compares them, keyed by
// object: what render(import(x)) must equal, object by object, for x. It
// applies, in order:
//
//  1. what render does: status and server-owned metadata (uid,
//     resourceVersion, generation, creationTimestamp, managedFields, ...)
//     removed, and namespaced objects without a namespace put in namespace;
//  2. what import strips: the piceli.dev/release label (render sets it) and
//     kubectl's last-applied-configuration annotation;
//  3. a Secret as render prints one: its values removed and its keys
//     listed in piceli.dev/secret-keys, type Opaque when it has none, and
//     the Secret builder's labels (app.kubernetes.io/name = its name,
//     part-of = app, managed-by = piceli) where it has none of its own;
//  4. an object of a kind with a k8s.io/api type as the API server stores
//     it: decoded into that type and encoded again, so that what the type
//     cannot tell apart compares equal (readOnly: false and no readOnly,
//     cpu: 1 and cpu: "1", 0.5 and 500m). An object with a field its type
//     does not know is left as it is (import keeps such objects as YAML
//     files, so that nothing is lost);
//  5. null values, empty maps and empty lists dropped, except an empty
//     emptyDir: an empty value is the same as none.
//
// Two objects of one identity are an error.
func Normal(objs []*unstructured.Unstructured, namespace, app string) (map[object.Ref]map[string]any, error) {
	decl := make([]object.Declared, len(objs))
	for i, u := range objs {
		decl[i] = object.Declared{Origin: fmt.Sprintf("object %d", i+1), Object: u}
	}
	rendered, err := render.Objects(decl, render.Options{Namespace: namespace})
	if err != nil {
		return nil, err
	}
	out := make(map[object.Ref]map[string]any, len(rendered))
	for _, d := range rendered {
		out[object.RefOf(d.Object)] = normalObject(d.Object, app)
	}
	return out, nil
}

// normalObject applies steps 2 to 5 of Normal to a rendered object.
func normalObject(u *unstructured.Unstructured, app string) map[string]any {
	u = u.DeepCopy()
	dropMeta(u, "labels", object.ReleaseLabel)
	dropMeta(u, "annotations", lastApplied)
	if object.IsSecret(u) {
		u = normalSecret(u, app)
	}
	m := u.Object
	if stored, ok := asStored(u); ok {
		m = stored
	}
	dropEmpty(m)
	return m
}

// asStored returns u decoded into its k8s.io/api type and encoded again.
// ok is false for a kind without a type and for an object with fields its
// type does not know, or that does not fit it.
func asStored(u *unstructured.Unstructured) (map[string]any, bool) {
	obj, err := scheme.Scheme.New(u.GroupVersionKind())
	if err != nil {
		return nil, false
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(u.Object, obj, true); err != nil {
		return nil, false
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	return m, err == nil
}

// unknownFields reports whether u, of a kind with a k8s.io/api type, has
// fields its type does not know: its literal would drop them.
func unknownFields(u *unstructured.Unstructured) bool {
	obj, err := scheme.Scheme.New(u.GroupVersionKind())
	if err != nil {
		return false
	}
	return runtime.IsStrictDecodingError(runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(u.DeepCopy().Object, obj, true))
}

// dropMeta removes one label or annotation.
func dropMeta(u *unstructured.Unstructured, field, key string) {
	unstructured.RemoveNestedField(u.Object, "metadata", field, key)
}

// normalSecret redacts a Secret as render does and gives it what the
// Secret builder adds.
func normalSecret(u *unstructured.Unstructured, app string) *unstructured.Unstructured {
	u = render.Redacted(u)
	if t, _, _ := unstructured.NestedString(u.Object, "type"); t == "" {
		u.Object["type"] = "Opaque"
	}
	labels := u.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	for k, v := range map[string]string{labelName: u.GetName(), labelPartOf: app, labelManagedBy: "piceli"} {
		if _, ok := labels[k]; !ok {
			labels[k] = v
		}
	}
	u.SetLabels(labels)
	return u
}

// dropEmpty removes null values, empty maps and empty lists, innermost
// first, keeping an empty emptyDir.
func dropEmpty(v any) bool {
	switch t := v.(type) {
	case nil:
		return true
	case map[string]any:
		for k, c := range t {
			if dropEmpty(c) && k != "emptyDir" {
				delete(t, k)
			}
		}
		return len(t) == 0
	case []any:
		for _, c := range t {
			dropEmpty(c) // an emptied item stays: it still counts
		}
		return len(t) == 0
	}
	return false
}
