package importer

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/importgen"
	"github.com/pynenc/piceli/internal/object"
)

// objects cleans the sources, takes the target namespace off the objects
// in it and returns them for importgen, each with the forms its type
// allows. Two sources of one object are refused, naming both.
func (r *run) objects() ([]importgen.Object, error) {
	seen := map[object.Ref]string{}
	out := make([]importgen.Object, 0, len(r.sources))
	for _, s := range r.sources {
		clean(s.obj)
		if s.obj.GetNamespace() == r.namespace {
			s.obj.SetNamespace("")
		}
		ref := r.refOf(s.obj)
		if prev, dup := seen[ref]; dup {
			return nil, refusef("%s is imported twice: from %s and from %s", ref, prev, s.origin)
		}
		seen[ref] = s.origin
		o, err := r.object(s)
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, nil
}

// refOf is an object's reference once rendered in the target namespace.
func (r *run) refOf(u *unstructured.Unstructured) object.Ref {
	ref := object.RefOf(u)
	if ref.Namespace == "" && namespaced(source{obj: u}) {
		ref.Namespace = r.namespace
	}
	return ref
}

// object returns the importgen object of a source. An object with fields
// its Go type does not know skips the literal form, which would drop
// them: only a YAML file says it exactly.
func (r *run) object(s source) (importgen.Object, error) {
	o := importgen.Object{Origin: s.origin, Manifest: s.obj}
	if _, _, err := importgen.Typed(s.obj); err != nil {
		return o, refuse(fmt.Errorf("%s: %s: %w", s.origin, object.RefOf(s.obj), err))
	}
	o.SkipLiteral = unknownFields(s.obj)
	return o, nil
}
