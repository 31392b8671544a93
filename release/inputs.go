package release

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/compose"
	"github.com/pynenc/piceli/internal/digest"
	"github.com/pynenc/piceli/internal/manifest"
	"github.com/pynenc/piceli/internal/object"
	planner "github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/render"
	"github.com/pynenc/piceli/plan"
)

// An apply renders the composition again to refuse a plan the composition
// no longer gives. When the composition is YAML or JSON files and nothing
// else, the files' bytes decide its objects: a plan records a keyed digest
// of them (plan.Plan Inputs), and an apply that finds the very same bytes
// takes the approved plan's manifests for the render instead of decoding
// the files again, most of a no-op apply's work in a large release. The
// plan it then makes against the cluster, and the approval check, are the
// same as after a render.

// inputsInfo starts every inputs digest, so it never equals a digest of
// anything else made with the same key.
const inputsInfo = "piceli composition inputs v1"

// inputsDigest is the keyed digest of what the objects of a files-only
// composition are made of: its path, the namespace and release name the
// render gives them, and the path and sum of each file, in order.
func (r *Release) inputsDigest(key []byte, srcs []manifest.Source) string {
	sp := r.spec
	fields := [][]byte{[]byte(inputsInfo), []byte(sp.Release.Composition.File), []byte(sp.Target.Namespace), []byte(sp.Release.Name)}
	for _, s := range srcs {
		fields = append(fields, []byte(s.Path), s.Sum[:])
	}
	return digest.Fields(key, fields...)
}

// inputs is what a plan of s records as its Inputs: the digest of the
// files s rendered, or "" when its objects would not come back the same
// from the plan's manifests: a composition of more than files, a Secret (a
// plan keeps only digests of its values), or an integer beyond what a
// stored plan's JSON numbers hold exactly.
func (s *session) inputs() string {
	if s.sources == nil || len(s.declared) > 0 || s.r.promotion != nil {
		return ""
	}
	for _, o := range s.objects {
		if object.IsSecret(o.Object) || !exactInJSON(o.Object.Object) {
			return ""
		}
	}
	return s.r.inputsDigest(s.key, s.sources)
}

// maxExact is the largest integer a float64, which a stored plan's numbers
// decode to, holds exactly.
const maxExact = 1 << 53

// exactInJSON reports whether every integer in v survives a stored plan.
func exactInJSON(v any) bool {
	switch v := v.(type) {
	case map[string]any:
		for _, e := range v {
			if !exactInJSON(e) {
				return false
			}
		}
	case []any:
		for _, e := range v {
			if !exactInJSON(e) {
				return false
			}
		}
	case int64:
		return -maxExact <= v && v <= maxExact
	case int:
		return -maxExact <= v && v <= maxExact
	}
	return true
}

// reusesRender reports whether an apply may take an approved plan's
// manifests for the render: a composition of files only, read here (not a
// published artifact), not a promotion, and a state directory that is this
// machine's alone (a shared one changes with the pull that connecting
// brings, its digest key included).
func (r *Release) reusesRender() bool {
	return r.opts.Artifact == "" && r.promotion == nil && !r.sharesState() && compose.FilesOnly(r.spec)
}

// precheckThenOpen is precheckAndOpen for a composition of files only
// (reusesRender): the approved plan loads and its environment is checked
// while the files are read and summed, and a plan made from the same bytes
// gives the session its objects; any other renders them. The check comes
// before anything else, as there.
func (r *Release) precheckThenOpen(ctx context.Context, hash string) (*plan.Plan, *session, error) {
	var digestNow string
	done := make(chan struct{})
	go func() {
		defer close(done)
		srcs, ok, err := compose.Sources(r.spec)
		key, keyErr := planner.ReadKey(r.StateDir())
		if ok && err == nil && keyErr == nil {
			digestNow = r.inputsDigest(key, srcs)
		}
	}()
	pre, err := r.precheckEnvironment(hash)
	<-done
	if err != nil {
		return nil, nil, err
	}
	if p := promotionOf(pre); p != nil {
		s, err := r.forPromotion(p).open(ctx)
		return pre, s, err
	}
	if objs := r.plannedObjects(pre, digestNow); objs != nil {
		s, err := r.openPlanned(ctx, objs)
		return pre, s, err
	}
	s, err := r.open(ctx)
	return pre, s, err
}

// plannedObjects returns the objects p's manifests declare, in the order
// a render gives them, when p was made from the inputs whose digest is
// now; nil otherwise. They are the plan's own maps, not copies: its
// manifests are what the render gave when it was made (sealed since), and
// every stage that changes an object copies it first (object.Declared).
func (r *Release) plannedObjects(p *plan.Plan, now string) []object.Declared {
	if p == nil || p.Inputs == "" || now == "" || !digest.Equal(p.Inputs, now) {
		return nil
	}
	objs := make([]object.Declared, 0, len(p.Steps))
	for _, st := range p.Steps {
		if st.Action == plan.Delete || st.Origin == planner.TargetNamespaceOrigin {
			continue // not declared: a prune, or the namespace the planner adds
		}
		objs = append(objs, object.Declared{Origin: st.Origin, Object: &unstructured.Unstructured{Object: st.Manifest}})
	}
	render.Sort(objs)
	return objs
}

// openPlanned is open with objects already rendered (plannedObjects).
func (r *Release) openPlanned(ctx context.Context, objs []object.Declared) (*session, error) {
	if err := r.checkOwner(); err != nil {
		return nil, err
	}
	sp, err := r.composedSpec()
	if err != nil {
		return nil, err
	}
	s := &session{r: r, objects: objs, source: apply.SourceApply, images: sp.Images, fromPlan: true}
	return s, s.connect(ctx)
}
