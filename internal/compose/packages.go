package compose

import (
	"context"
	"fmt"
	"path/filepath"

	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"sigs.k8s.io/yaml"

	"github.com/pynenc/piceli/internal/compose/chart"
	"github.com/pynenc/piceli/internal/compose/kustomize"
	"github.com/pynenc/piceli/internal/inputfile"
	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/spec"
	"github.com/pynenc/piceli/refusal"
)

// maxValuesFile bounds a chart's values file.
const maxValuesFile = 1 << 20

// renderCharts renders the charts of release.toml into objects, in order.
func renderCharts(ctx context.Context, s *spec.Spec, charts []spec.Chart, opts chart.Options) ([]object.Declared, error) {
	var out []object.Declared
	for _, c := range charts {
		values, err := chartValues(c)
		if err != nil {
			return nil, err
		}
		name := c.Name
		if name == "" {
			name = s.Release.Name
		}
		src := chart.Source{Path: c.Path, Digest: c.Digest, Values: values}
		opts.Release, opts.Namespace = name, s.Target.Namespace
		objs, err := chart.Render(ctx, src, opts)
		if err != nil {
			return nil, err
		}
		out = append(out, objs...)
	}
	return out, nil
}

// chartValues merges a chart's values table over its values file.
func chartValues(c spec.Chart) (map[string]any, error) {
	values := map[string]any{}
	if c.ValuesFile != "" {
		data, err := inputfile.Read(c.ValuesFile, maxValuesFile)
		if err != nil {
			return nil, refusal.Errorf("read values of chart %s: %w", c.Path, err)
		}
		if err := yaml.Unmarshal(data, &values); err != nil {
			return nil, refusal.Errorf("read values of chart %s: %s: %w", c.Path, c.ValuesFile, err)
		}
	}
	if values == nil {
		values = map[string]any{}
	}
	return loader.MergeMaps(values, c.Values), nil
}

// withPackages appends the objects of the spec's charts and
// kustomizations to res.
func withPackages(ctx context.Context, s *spec.Spec, res *Result, opts chart.Options) error {
	charts, kusts := fromDocument(s, res)
	objs, err := renderCharts(ctx, s, append(charts, s.Charts...), opts)
	if err != nil {
		return fmt.Errorf("render charts: %w", err)
	}
	res.Objects = append(res.Objects, objs...)
	for _, k := range append(kusts, s.Kustomizations...) {
		objs, err := kustomize.Render(kustomize.Source{Path: k.Path, Root: k.Root})
		if err != nil {
			return fmt.Errorf("render kustomizations: %w", err)
		}
		res.Objects = append(res.Objects, objs...)
	}
	return nil
}

// fromDocument turns the charts and kustomizations a Go composition added
// into spec entries, their paths resolved against the spec's directory.
func fromDocument(s *spec.Spec, res *Result) ([]spec.Chart, []spec.Kustomization) {
	var cs []spec.Chart
	for _, c := range res.Charts {
		cs = append(cs, spec.Chart{Path: specPath(s, c.Path), Digest: c.Digest, Name: c.Name, Values: c.Values})
	}
	var ks []spec.Kustomization
	for _, k := range res.Kustomizations {
		kz := spec.Kustomization{Path: specPath(s, k.Path)}
		if k.Root != "" {
			kz.Root = specPath(s, k.Root)
		}
		ks = append(ks, kz)
	}
	return cs, ks
}

// specPath resolves path against the spec's directory.
func specPath(s *spec.Spec, path string) string {
	if filepath.IsAbs(path) {
		return filepath.Clean(path)
	}
	return filepath.Join(s.Dir, path)
}
