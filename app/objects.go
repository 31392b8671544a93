package app

import (
	"fmt"
	"maps"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/pynenc/piceli/internal/manifest"
)

// Objects adds official k8s.io/api typed objects (a *corev1.ConfigMap, an
// *appsv1.Deployment, ...) as they are: no labels are added. apiVersion and
// kind come from client-go's scheme when TypeMeta is empty. Each object's
// origin is "k8s.io/api Kind/name". Objects are converted when added, so
// later changes to them have no effect.
func (a *App) Objects(objs ...runtime.Object) {
	for _, obj := range objs {
		if obj == nil {
			a.errorf("k8s.io/api object is nil")
			continue
		}
		m, err := toManifest(obj)
		if err != nil {
			a.errorf("k8s.io/api %T: %w", obj, err)
			continue
		}
		u := &unstructured.Unstructured{Object: m}
		a.addForeign(fmt.Sprintf("k8s.io/api %s/%s", u.GetKind(), u.GetName()), u)
	}
}

// Object adds one k8s.io/api typed object, as Objects does, with the
// options every builder takes: DependsOn, Annotation, NoWait, Labels (which
// replace the object's own), Zero (for the fields it sets to their zero
// value, which Go would leave out) and Edit. The object is converted when
// added.
func (a *App) Object(obj runtime.Object, opts ...CommonOption) {
	if obj == nil {
		a.errorf("k8s.io/api object is nil")
		return
	}
	var c common
	for _, o := range opts {
		if o.set != nil {
			o.set(&c)
		}
	}
	a.finish(obj, &c)
	m, err := toManifest(obj)
	if err == nil {
		err = setZeros(m, obj, c.zeros)
	}
	if err != nil {
		a.errorf("k8s.io/api %T: %w", obj, err)
		return
	}
	u := &unstructured.Unstructured{Object: m}
	if c.labelsSet {
		u.SetLabels(c.labels)
	}
	if len(c.annotations) > 0 {
		notes := u.GetAnnotations()
		if notes == nil {
			notes = map[string]string{}
		}
		maps.Copy(notes, c.annotations)
		u.SetAnnotations(notes)
	}
	if a.addForeign(fmt.Sprintf("k8s.io/api %s/%s", u.GetKind(), u.GetName()), u) {
		a.entries[len(a.entries)-1].deps = &c.deps
	}
}

// Unstructured adds unstructured objects as they are (deep-copied). Each
// object's origin is "unstructured Kind/name".
func (a *App) Unstructured(objs ...*unstructured.Unstructured) {
	for _, u := range objs {
		if u == nil {
			a.errorf("unstructured object is nil")
			continue
		}
		c := u.DeepCopy()
		prune(c.Object, false)
		a.addForeign(fmt.Sprintf("unstructured %s/%s", c.GetKind(), c.GetName()), c)
	}
}

// File adds every object of YAML or JSON files, multi-document streams and
// List kinds included, in file order. Paths are relative to the process's
// working directory (the composition's package directory). Each object's
// origin is its "file:line"; an unreadable or malformed file is an error
// naming it.
func (a *App) File(paths ...string) {
	for _, path := range paths {
		docs, err := manifest.ReadFile(path)
		if err != nil {
			a.errs = append(a.errs, err)
			continue
		}
		for _, d := range docs {
			prune(d.Object.Object, false)
			a.addForeign(d.Origin, d.Object)
		}
	}
}

// addForeign validates and adds an object the builders did not make,
// reporting whether it was added.
func (a *App) addForeign(origin string, u *unstructured.Unstructured) bool {
	switch {
	case u.GetAPIVersion() == "" || u.GetKind() == "":
		a.errorf("%s: apiVersion and kind are required", origin)
		return false
	case u.GetName() == "":
		a.errorf("%s: metadata.name is required", origin)
		return false
	}
	key := strings.ToLower(u.GetKind()) + "/" + u.GetName()
	if ns := u.GetNamespace(); ns != "" {
		key = strings.ToLower(u.GetKind()) + "/" + ns + "/" + u.GetName()
	}
	if a.seen[key] {
		a.errorf("%s: %s %q declared twice", origin, lower(u.GetKind()), u.GetName())
		return false
	}
	a.seen[key] = true
	a.entries = append(a.entries, &entry{origin: origin, manifest: u.Object})
	return true
}
