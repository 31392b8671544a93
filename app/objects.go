package app

import (
	"fmt"
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

// addForeign validates and adds an object the builders did not make.
func (a *App) addForeign(origin string, u *unstructured.Unstructured) {
	switch {
	case u.GetAPIVersion() == "" || u.GetKind() == "":
		a.errorf("%s: apiVersion and kind are required", origin)
		return
	case u.GetName() == "":
		a.errorf("%s: metadata.name is required", origin)
		return
	}
	key := strings.ToLower(u.GetKind()) + "/" + u.GetName()
	if ns := u.GetNamespace(); ns != "" {
		key = strings.ToLower(u.GetKind()) + "/" + ns + "/" + u.GetName()
	}
	if a.seen[key] {
		a.errorf("%s: %s %q declared twice", origin, lower(u.GetKind()), u.GetName())
		return
	}
	a.seen[key] = true
	a.entries = append(a.entries, &entry{origin: origin, manifest: u.Object})
}
