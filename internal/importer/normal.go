package importer

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/render"

	"github.com/pynenc/piceli/internal/builtin"
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
//  4. in an object of a kind with a k8s.io/api type, resource quantities
//     as the API server stores them (cpu: 1 equals cpu: "1", 0.5 equals
//     500m). A field set explicitly to its zero value (readOnly: false,
//     minReadySeconds: 0, globalDefault: false) is not the same as no
//     field: whoever applies it owns it under server-side apply;
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
	if obj, err := builtin.Scheme().New(u.GroupVersionKind()); err == nil {
		shape(u.Object, reflect.TypeOf(obj))
	}
	dropEmpty(u.Object)
	return u.Object
}

// shape walks v along its Go type t, in place: it writes quantities in
// canonical form, and returns v (a new value for a quantity). Keys t does
// not know are left alone.
func shape(v any, t reflect.Type) any {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == quantityType:
		return canonical(v)
	case opaqueTypes[t]:
		return v
	}
	switch t.Kind() {
	case reflect.Struct:
		if m, ok := v.(map[string]any); ok {
			shapeStruct(m, t)
		}
	case reflect.Slice:
		if l, ok := v.([]any); ok {
			for i := range l {
				l[i] = shape(l[i], t.Elem())
			}
		}
	case reflect.Map:
		if m, ok := v.(map[string]any); ok {
			for k := range m {
				m[k] = shape(m[k], t.Elem())
			}
		}
	}
	return v
}

// shapeStruct shapes the fields of a struct's map, inline fields
// included; explicit zero values stay.
func shapeStruct(m map[string]any, t reflect.Type) {
	for f := range t.Fields() {
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if strings.Contains(opts, "inline") || (f.Anonymous && name == "") {
			shapeStruct(m, f.Type)
			continue
		}
		c, ok := m[name]
		if !ok {
			continue
		}
		m[name] = shape(c, f.Type)
	}
}

var (
	quantityType = reflect.TypeFor[resource.Quantity]()
	// opaqueTypes encode themselves; their values are compared as written.
	opaqueTypes = map[reflect.Type]bool{
		reflect.TypeFor[intstr.IntOrString](): true, reflect.TypeFor[metav1.Time](): true,
		reflect.TypeFor[metav1.MicroTime](): true, reflect.TypeFor[metav1.Duration](): true,
		reflect.TypeFor[runtime.RawExtension](): true,
	}
)

// canonical returns a quantity's canonical string, or v when it is none.
func canonical(v any) any {
	var s string
	switch t := v.(type) {
	case string:
		s = t
	case int64:
		s = strconv.FormatInt(t, 10)
	case float64:
		s = strconv.FormatFloat(t, 'f', -1, 64)
	default:
		return v
	}
	q, err := resource.ParseQuantity(s)
	if err != nil {
		return v
	}
	return q.String()
}

// unknownFields reports whether u, of a kind with a k8s.io/api type, has
// fields its type does not know: its literal would drop them.
func unknownFields(u *unstructured.Unstructured) bool {
	obj, err := builtin.Scheme().New(u.GroupVersionKind())
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
