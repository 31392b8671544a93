package helmchart

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/object"
)

// extract moves u's values into the tree, leaving markers: images,
// replicas and resources of workloads, Ingress hosts, ConfigMap data.
func (v *values) extract(u *unstructured.Unstructured) {
	name := u.GetName()
	switch {
	case u.GetKind() == "ConfigMap" && u.GroupVersionKind().Group == "":
		if data, ok := u.Object["data"].(map[string]any); ok && len(data) > 0 {
			u.Object["data"] = v.set(data, "config", name)
		}
	case u.GetKind() == "Ingress":
		v.hosts(u, name)
	}
	if n, ok, _ := unstructured.NestedFieldNoCopy(u.Object, "spec", "replicas"); ok && object.PodTemplatePath(u) != nil {
		unstructured.SetNestedField(u.Object, v.set(n, "replicas", name), "spec", "replicas")
	}
	if p := object.PodTemplatePath(u); p != nil {
		v.containers(u, name, append(p, "spec"))
	}
}

// hosts moves each rule's host of an Ingress into hosts.NAME.
func (v *values) hosts(u *unstructured.Unstructured, name string) {
	rules, _, _ := unstructured.NestedSlice(u.Object, "spec", "rules")
	var hosts []any
	for _, r := range rules {
		if h, ok := r.(map[string]any)["host"].(string); ok && h != "" {
			hosts = append(hosts, h)
		}
	}
	if len(hosts) == 0 {
		return
	}
	v.put(hosts, "hosts", name)
	i := 0
	for _, r := range rules {
		m := r.(map[string]any)
		if h, ok := m["host"].(string); ok && h != "" {
			m["host"] = v.item(i, "hosts", name)
			i++
		}
	}
	unstructured.SetNestedSlice(u.Object, rules, "spec", "rules")
}

// item is a marker for the i-th element of the list at path.
func (v *values) item(i int, path ...string) string {
	return v.mark("{{ toJson (index " + indexExpr(path) + " " + itoa(i) + ") }}")
}

// containers moves each container's image (when it is one of the
// release's images) and resources into images.KEY and
// resources.WORKLOAD.CONTAINER.
func (v *values) containers(u *unstructured.Unstructured, name string, spec []string) {
	for _, list := range []string{"initContainers", "containers"} {
		items, _, _ := unstructured.NestedSlice(u.Object, append(spec, list)...)
		for _, it := range items {
			c := it.(map[string]any)
			if key, ok := v.images[asString(c["image"])]; ok {
				c["image"] = v.set(c["image"], "images", key)
			}
			if r, ok := c["resources"].(map[string]any); ok && len(r) > 0 {
				c["resources"] = v.set(r, "resources", name, asString(c["name"]))
			}
		}
		if items != nil {
			unstructured.SetNestedSlice(u.Object, items, append(spec, list)...)
		}
	}
}
