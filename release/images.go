package release

import (
	"maps"
	"path/filepath"

	"github.com/pynenc/piceli/artifact"
	"github.com/pynenc/piceli/internal/spec"
)

// composedSpec is the spec as a composition sees it: every [images] entry
// written { build = "NAME" } replaced by the digest reference that the
// layout built from the build.toml beside the spec records, so an image
// that did not change gives the same objects and a rebuilt one rolls only
// the workloads that use it. A missing or stale build is refused.
func (r *Release) composedSpec() (*spec.Spec, error) {
	if len(r.spec.Builds) == 0 {
		return r.spec, nil
	}
	s := *r.spec
	s.Images = maps.Clone(r.spec.Images)
	buildSpec := filepath.Join(r.spec.Dir, artifact.SpecFile)
	for key, b := range r.spec.Builds {
		ref, err := artifact.Resolve(buildSpec, b.Image, b.Registry)
		if err != nil {
			return nil, refuse(err)
		}
		s.Images[key] = ref
	}
	return &s, nil
}
