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
// the workloads that use it. A missing or stale build is refused. A
// release opened for a promoted plan (r.promotion) takes the promoted
// keys from it instead, built or not.
func (r *Release) composedSpec() (*spec.Spec, error) {
	if len(r.spec.Builds) == 0 && r.promotion == nil {
		return r.spec, nil
	}
	s := *r.spec
	s.Images = maps.Clone(r.spec.Images)
	buildSpec := filepath.Join(r.spec.Dir, artifact.SpecFile)
	var promoted map[string]string
	if r.promotion != nil {
		promoted = r.promotion.Images
	}
	for key, ref := range promoted {
		s.Images[key] = ref
	}
	for key, b := range r.spec.Builds {
		if _, ok := promoted[key]; ok {
			continue
		}
		ref, err := artifact.Resolve(buildSpec, b.Image, b.Registry)
		if err != nil {
			return nil, refuse(err)
		}
		s.Images[key] = ref
	}
	return &s, nil
}
