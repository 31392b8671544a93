package importer

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"

	"github.com/pynenc/piceli/internal/compose"
	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/render"
	"github.com/pynenc/piceli/internal/scaffold"
	"github.com/pynenc/piceli/internal/spec"
)

// rendered is what rendering a generated module gave: each object's
// normal form, or the composition's error.
type rendered struct {
	objects map[object.Ref]map[string]any
	err     error // the module did not render (a builder refused a call)
}

// renderModule tidies the module in dir and renders it as piceli render
// would, without a cluster.
func (r *run) renderModule(ctx context.Context, dir string) (rendered, error) {
	if err := scaffold.Tidy(ctx, dir); err != nil {
		return rendered{}, err
	}
	s, err := spec.Load(dir + "/release.toml")
	if err != nil {
		return rendered{}, fmt.Errorf("generated release.toml: %w", err)
	}
	res, err := compose.Load(ctx, s, compose.Options{Log: r.opts.Log, CacheDir: r.opts.CacheDir})
	if err != nil {
		return rendered{err: err}, nil
	}
	objs, err := Normal(render.Manifests(res.Objects), r.namespace, r.app)
	return rendered{objects: objs, err: err}, nil
}

// differences compares what was rendered with what was imported, object
// by object, and returns each differing object with the first path that
// differs (never a value).
func differences(want, got map[object.Ref]map[string]any) map[object.Ref]string {
	out := map[object.Ref]string{}
	for ref, w := range want {
		g, ok := got[ref]
		if !ok {
			out[ref] = "not rendered"
			continue
		}
		if p := firstDiff("", w, g); p != "" {
			out[ref] = p
		}
	}
	for ref := range got {
		if _, ok := want[ref]; !ok {
			out[ref] = "rendered but not imported"
		}
	}
	return out
}

// firstDiff returns the first path at which a and b differ, "" when they
// are equal.
func firstDiff(path string, a, b any) string {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		keys := slices.Sorted(maps.Keys(am))
		for k := range bm {
			if _, ok := am[k]; !ok {
				keys = append(keys, k)
			}
		}
		for _, k := range keys {
			if p := firstDiff(path+"."+k, am[k], bm[k]); p != "" {
				return p
			}
		}
		return ""
	}
	al, aok := a.([]any)
	bl, bok := b.([]any)
	if aok && bok && len(al) == len(bl) {
		for i := range al {
			if p := firstDiff(fmt.Sprintf("%s[%d]", path, i), al[i], bl[i]); p != "" {
				return p
			}
		}
		return ""
	}
	if reflect.DeepEqual(a, b) {
		return ""
	}
	if path == "" {
		return "."
	}
	return path
}
