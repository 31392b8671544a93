package plan

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/spec"
)

// containerLists are the container lists of a pod spec whose images a
// plan checks, with how a warning names their items.
var containerLists = []struct{ field, what string }{
	{"initContainers", "init container"},
	{"containers", "container"},
}

// imageWarnings returns a warning for every init container and container
// of u's pods whose image is not pinned by digest, by the rule [images]
// follows (spec.Pinned), in the order they are declared. Objects without
// pods (neither a Pod nor a workload with a pod template) have none; an
// empty image is left to the server to refuse.
func imageWarnings(u *unstructured.Unstructured) []string {
	path := podSpecPath(u)
	if path == nil {
		return nil
	}
	var out []string
	for _, l := range containerLists {
		items, _, _ := unstructured.NestedSlice(u.Object, append(path, l.field)...)
		for _, it := range items {
			c, _ := it.(map[string]any)
			name, _ := c["name"].(string)
			image, _ := c["image"].(string)
			if image != "" && !spec.Pinned(image) {
				out = append(out, fmt.Sprintf("%s %q: image %q is not pinned by digest", l.what, name, image))
			}
		}
	}
	return out
}

// podSpecPath is where u keeps the spec of its pods, or nil.
func podSpecPath(u *unstructured.Unstructured) []string {
	if u.GroupVersionKind().Group == "" && u.GetKind() == "Pod" {
		return []string{"spec"}
	}
	if p := object.PodTemplatePath(u); p != nil {
		return append(p, "spec")
	}
	return nil
}

// checkImages refuses, when Input.RequirePinnedImages is set, every image
// imageWarnings finds, naming each object and container.
func (m *maker) checkImages() error {
	if !m.in.RequirePinnedImages {
		return nil
	}
	var errs []error
	for _, o := range m.in.Objects {
		for _, w := range imageWarnings(o.Object) {
			errs = append(errs, fmt.Errorf("plan %s (declared by %s): %w: %s; pin it by digest, or set release.require_pinned_images = false",
				object.RefOf(o.Object), o.Origin, ErrNotAllowed, w))
		}
	}
	return errors.Join(errs...)
}
