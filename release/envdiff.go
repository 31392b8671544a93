package release

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	pobject "github.com/pynenc/piceli/internal/object"
	planner "github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/object"
)

// EnvDiffSchema versions an EnvDiff.
const EnvDiffSchema = "piceli.env-diff/v1"

// EnvDiff is what differs between two environments of one release spec:
// first their values and images, then, object by object, the field paths
// whose rendered values differ. It holds no value of a Secret: a Secret's
// rendering has none, and objects show paths, never values. Every list is
// sorted, so the same spec gives the same document byte for byte.
type EnvDiff struct {
	Schema  string        `json:"schema"` // EnvDiffSchema
	From    string        `json:"from"`   // the environment compared
	To      string        `json:"to"`     // the environment it is compared with
	Values  []SettingDiff `json:"values"`
	Images  []SettingDiff `json:"images"`
	Objects []ObjectDiff  `json:"objects"`
}

// SettingDiff is one [values] or [images] key the two environments set
// differently.
type SettingDiff struct {
	Key  string `json:"key"`
	From string `json:"from"`
	To   string `json:"to"`
}

// The sides of an object only one environment declares (ObjectDiff.Only).
const (
	OnlyFrom = "from"
	OnlyTo   = "to"
)

// ObjectDiff is one object the environments render differently. Objects
// are matched by group, kind, name and namespace, where each
// environment's target namespace counts as the same namespace.
type ObjectDiff struct {
	// Ref is the object as From renders it (as To does, for one only To
	// declares).
	Ref object.Ref `json:"ref"`
	// Only is OnlyFrom or OnlyTo when one environment alone declares the
	// object; empty when both do and Paths differ.
	Only string `json:"only,omitempty"`
	// Paths are the dotted field paths whose values differ, sorted (list
	// items keyed by name where they have one, as plans write them).
	Paths []string `json:"paths,omitempty"`
}

// Changed reports whether the environments differ at all.
func (d *EnvDiff) Changed() bool {
	return len(d.Values)+len(d.Images)+len(d.Objects) > 0
}

// DiffEnvironments renders the spec at specPath for the environments from
// and to (as Open and Render do, never contacting a cluster) and returns
// what differs. A bad spec or an environment it does not declare is a
// refusal (refusal.Is).
func DiffEnvironments(ctx context.Context, specPath, from, to string, opts Options) (*EnvDiff, error) {
	a, err := renderEnv(ctx, specPath, from, opts)
	if err != nil {
		return nil, err
	}
	b, err := renderEnv(ctx, specPath, to, opts)
	if err != nil {
		return nil, err
	}
	return diffEnvs(a, b), nil
}

// renderedEnv is one environment's inputs and rendered objects.
type renderedEnv struct {
	name      string
	namespace string
	values    map[string]string
	images    map[string]string
	objects   []*unstructured.Unstructured
}

// renderEnv opens the spec for env and renders it.
func renderEnv(ctx context.Context, specPath, env string, opts Options) (*renderedEnv, error) {
	opts.Env = env
	r, err := Open(specPath, opts)
	if err != nil {
		return nil, err
	}
	sp, err := r.composedSpec()
	if err != nil {
		return nil, err
	}
	objs, err := r.Render(ctx, RenderOptions{})
	if err != nil {
		return nil, err
	}
	return &renderedEnv{name: env, namespace: sp.Target.Namespace, values: sp.Values, images: sp.Images, objects: objs}, nil
}

// diffEnvs compares two rendered environments: the pure core of
// DiffEnvironments.
func diffEnvs(a, b *renderedEnv) *EnvDiff {
	d := &EnvDiff{Schema: EnvDiffSchema, From: a.name, To: b.name,
		Values: settingDiffs(a.values, b.values), Images: settingDiffs(a.images, b.images), Objects: []ObjectDiff{}}
	from, to := a.byKey(), b.byKey()
	for _, k := range slices.Sorted(maps.Keys(union(from, to))) {
		if od, ok := objectDiff(from[k], to[k], a.namespace, b.namespace); ok {
			d.Objects = append(d.Objects, od)
		}
	}
	return d
}

// settingDiffs lists the keys a and b set differently, sorted.
func settingDiffs(a, b map[string]string) []SettingDiff {
	out := []SettingDiff{}
	for _, k := range slices.Sorted(maps.Keys(union(a, b))) {
		if a[k] != b[k] {
			out = append(out, SettingDiff{Key: k, From: a[k], To: b[k]})
		}
	}
	return out
}

// union is the keys of a and b.
func union[V any](a, b map[string]V) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

// byKey indexes the environment's objects by a key in which its target
// namespace is written "~", so the two environments' objects match.
func (e *renderedEnv) byKey() map[string]*unstructured.Unstructured {
	out := make(map[string]*unstructured.Unstructured, len(e.objects))
	for _, u := range e.objects {
		ref := pobject.RefOf(u)
		if ref.Namespace == e.namespace {
			ref.Namespace = "~"
		}
		out[ref.Group+"/"+ref.String()] = u
	}
	return out
}

// objectDiff compares one object as each environment renders it (nil
// where it declares none).
func objectDiff(a, b *unstructured.Unstructured, nsA, nsB string) (ObjectDiff, bool) {
	switch {
	case b == nil:
		return ObjectDiff{Ref: pobject.RefOf(a), Only: OnlyFrom}, true
	case a == nil:
		return ObjectDiff{Ref: pobject.RefOf(b), Only: OnlyTo}, true
	}
	var paths []string
	for _, c := range planner.Diff(inTarget(a, nsA), inTarget(b, nsB)) {
		paths = append(paths, c.Path)
	}
	return ObjectDiff{Ref: pobject.RefOf(a), Paths: paths}, len(paths) > 0
}

// inTarget is u's manifest with the target namespace ns left out, so that
// two environments' namespaces are not a difference of every object.
func inTarget(u *unstructured.Unstructured, ns string) map[string]any {
	c := u.DeepCopy()
	if c.GetNamespace() == ns {
		c.SetNamespace("")
	}
	return c.Object
}

// Write prints the difference for people: the values and images, then
// each object with its paths; "no differences" when there are none.
func (d *EnvDiff) Write(w io.Writer) {
	fmt.Fprintf(w, "environment %s compared with %s\n", d.From, d.To)
	if !d.Changed() {
		fmt.Fprintln(w, "no differences")
		return
	}
	writeSettings(w, "values", d.Values)
	writeSettings(w, "images", d.Images)
	if len(d.Objects) > 0 {
		fmt.Fprintf(w, "\nobjects (%d):\n", len(d.Objects))
	}
	for _, o := range d.Objects {
		switch o.Only {
		case OnlyFrom:
			fmt.Fprintf(w, "  - %s: only in %s\n", o.Ref, d.From)
		case OnlyTo:
			fmt.Fprintf(w, "  + %s: only in %s\n", o.Ref, d.To)
		default:
			fmt.Fprintf(w, "  ~ %s: %s\n", o.Ref, strings.Join(o.Paths, ", "))
		}
	}
}

// writeSettings prints one titled list of setting differences.
func writeSettings(w io.Writer, title string, diffs []SettingDiff) {
	if len(diffs) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%s (%d):\n", title, len(diffs))
	for _, s := range diffs {
		fmt.Fprintf(w, "  %s: %q -> %q\n", s.Key, s.From, s.To)
	}
}
