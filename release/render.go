package release

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/render"
)

// RenderOptions tune Render. The zero value is valid.
type RenderOptions struct{}

// Render loads the composition (compiling a Go composition, or reading
// YAML/JSON files) and returns its manifests in apply order, namespaced
// objects in the target namespace, server fields and status dropped, and
// Secrets without values (their keys listed in an annotation). It never
// contacts a cluster, and the same inputs give the same manifests.
func (r *Release) Render(ctx context.Context, _ RenderOptions) ([]*unstructured.Unstructured, error) {
	s, err := r.load(ctx, nil)
	if err != nil {
		return nil, err
	}
	out := render.Manifests(s.objects)
	for i, u := range out {
		out[i] = render.Redacted(u)
	}
	return out, nil
}
