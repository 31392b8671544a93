package app

import (
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/pynenc/piceli/internal/builtin"
)

// edit is one Edit: the object type it takes and the function.
type edit struct {
	typ reflect.Type
	fn  func(any)
}

// Edit is the typed escape hatch of every builder: f edits the k8s.io/api
// object the builder generated (an *appsv1.Deployment for a.Deployment, a
// *corev1.Service for a.Service, ...) once its options are applied, for a
// field no option sets. The object stays a builder object: its labels,
// selector, ports and handle are those the options declared, so an edit
// that changes them makes what the handle promises untrue. Edits run at
// declaration, in the order given; an Edit whose type is not the builder's
// is reported, naming both.
func Edit[T any](f func(*T)) CommonOption {
	return CommonOption{set: func(c *common) {
		if f == nil {
			c.errs = append(c.errs, "Edit function is nil")
			return
		}
		c.edits = append(c.edits, edit{typ: reflect.TypeFor[*T](), fn: func(obj any) { f(obj.(*T)) }})
	}}
}

// Zero keeps fields at their zero value (false, 0 or "") in the object's
// manifest, where Go would leave them out: an object that says
// minReadySeconds: 0 or globalDefault: false owns that field under
// server-side apply, and one that says nothing does not. Each path is the
// field's JSON path in the object, dot-separated, with list indexes in
// brackets: "spec.minReadySeconds",
// "spec.template.spec.containers[0].stdin". It must name a bool, number or
// string field of the object's Go type that the options and edits left at
// zero, inside lists the object has.
func Zero(paths ...string) CommonOption {
	return CommonOption{set: func(c *common) { c.zeros = append(c.zeros, paths...) }}
}

// finish applies a builder object's edits and checks its zero paths,
// recording problems under the object's kind and name.
func (a *App) finish(obj runtime.Object, c *common) {
	kind, name := kindName(obj)
	a.report(kind, name, c.errs)
	for _, e := range c.edits {
		if reflect.TypeOf(obj) != e.typ {
			a.report(kind, name, []string{fmt.Sprintf("Edit takes %s, but the builder makes %T", e.typ, obj)})
			continue
		}
		e.fn(obj)
	}
	for _, p := range c.zeros {
		if err := checkZero(obj, p); err != nil {
			a.report(kind, name, []string{fmt.Sprintf("Zero %q: %v", p, err)})
		}
	}
}

// kindName returns a typed object's kind and name for messages.
func kindName(obj runtime.Object) (string, string) {
	name := ""
	if m, ok := obj.(interface{ GetName() string }); ok {
		name = m.GetName()
	}
	kind := obj.GetObjectKind().GroupVersionKind().Kind
	if gvks, _, err := builtin.Scheme().ObjectKinds(obj); kind == "" && err == nil && len(gvks) > 0 {
		kind = gvks[0].Kind
	}
	return kind, name
}
