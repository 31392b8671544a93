package secret

import (
	"encoding/base64"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/object"
)

// AnnotationPrefix starts the pod-template annotation that carries a
// secret version's keyed digest: "secret.piceli.dev/<secret name>". A new
// version changes the annotation, which rolls the workload.
const AnnotationPrefix = "secret.piceli.dev/"

// Inject gives each declared Secret object in objs the values of its
// resolved version, and stamps the pod template of every workload that
// uses one of those Secrets with the version's keyed digest. Objects are
// changed in place; the values live only in memory.
func Inject(objs []object.Declared, versions map[string]*Version, key []byte) {
	for _, o := range objs {
		u := o.Object
		if v, ok := versions[u.GetName()]; ok && object.IsSecret(u) {
			setValues(u, v)
		}
		if spec := podSpec(u); spec != nil {
			stamp(u, usedSecrets(spec), versions, key)
		}
	}
}

func setValues(u *unstructured.Unstructured, v *Version) {
	data := map[string]any{}
	for k, val := range v.Values() {
		data[k] = base64.StdEncoding.EncodeToString(val)
	}
	delete(u.Object, "stringData")
	u.Object["data"] = data
}

// podTemplate returns the pod template of a workload, or nil.
func podTemplate(u *unstructured.Unstructured) map[string]any {
	path := object.PodTemplatePath(u)
	if path == nil {
		return nil
	}
	t, _, _ := unstructured.NestedMap(u.Object, path...)
	return t
}

func podSpec(u *unstructured.Unstructured) map[string]any {
	t := podTemplate(u)
	if t == nil {
		return nil
	}
	spec, _ := t["spec"].(map[string]any)
	return spec
}

// stamp writes the digest annotation of each used, resolved secret into
// the workload's pod template.
func stamp(u *unstructured.Unstructured, used []string, versions map[string]*Version, key []byte) {
	ann := append(object.PodTemplatePath(u), "metadata", "annotations")
	for _, name := range used {
		v, ok := versions[name]
		if !ok {
			continue
		}
		unstructured.SetNestedField(u.Object, Digest(key, v), append(slices.Clone(ann), annotationKey(name))...)
	}
}

// annotationKey is the annotation for secret name; names too long for an
// annotation's name part are cut and suffixed with their length.
func annotationKey(name string) string {
	if len(name) <= 63 {
		return AnnotationPrefix + name
	}
	return fmt.Sprintf("%s%s-%d", AnnotationPrefix, name[:55], len(name))
}

// usedSecrets lists the Secrets a pod spec reads, sorted and unique:
// through env, envFrom, and secret or projected volumes.
func usedSecrets(spec map[string]any) []string {
	seen := map[string]bool{}
	for _, c := range append(items(spec, "containers"), items(spec, "initContainers")...) {
		for _, e := range items(c, "env") {
			add(seen, e, "valueFrom", "secretKeyRef", "name")
		}
		for _, e := range items(c, "envFrom") {
			add(seen, e, "secretRef", "name")
		}
	}
	for _, v := range items(spec, "volumes") {
		add(seen, v, "secret", "secretName")
		for _, src := range items(v["projected"], "sources") {
			add(seen, src, "secret", "name")
		}
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

func items(v any, field string) []map[string]any {
	m, _ := v.(map[string]any)
	list, _ := m[field].([]any)
	out := make([]map[string]any, 0, len(list))
	for _, it := range list {
		if im, ok := it.(map[string]any); ok {
			out = append(out, im)
		}
	}
	return out
}

func add(seen map[string]bool, m map[string]any, path ...string) {
	if name, _, _ := unstructured.NestedString(m, path...); name != "" {
		seen[name] = true
	}
}
