package app

import (
	"encoding/json"
	"fmt"

	protocol "github.com/pynenc/piceli/wire"
)

// ChartInfo is a Helm chart added by App.Chart: Path, Digest, Name and
// Values, as the composition document carries it.
type ChartInfo = protocol.ChartInfo

// KustomizationInfo is a kustomization added by App.Kustomization: Path
// and Root.
type KustomizationInfo = protocol.KustomizationInfo

// Chart is a Helm chart of the app, added by App.Chart.
type Chart struct{ info *ChartInfo }

// Chart adds the vendored Helm chart at path (a .tgz or a directory,
// relative to release.toml's directory unless absolute), pinned by digest
// ("sha256:" and 64 hex digits; Piceli refuses a chart with another and
// names the one it found). values override the chart's values.yaml: a map
// or any struct that encodes to a JSON object (typed values), nil for
// none. Piceli renders the chart after the composition returns, with the
// Helm v4 SDK, and its objects join the release like any other; see
// docs/charts.md for what is refused.
func (a *App) Chart(path, digest string, values any) *Chart {
	info := &ChartInfo{Path: path, Digest: digest}
	m, err := valuesMap(values)
	if err != nil {
		a.errorf("chart %s: values: %v", path, err)
	}
	info.Values = m
	if path == "" || digest == "" {
		a.errorf("chart %q: a path and a digest are required", path)
	}
	a.charts = append(a.charts, info)
	return &Chart{info: info}
}

// Named sets the Helm release name the chart sees (.Release.Name); by
// default it is the release's name.
func (c *Chart) Named(name string) *Chart {
	c.info.Name = name
	return c
}

// Kustomization is a kustomization of the app, added by App.Kustomization.
type Kustomization struct{ info *KustomizationInfo }

// Kustomization adds the local kustomization directory at path (relative
// to release.toml's directory unless absolute). Piceli builds it after the
// composition returns with kustomize's Go API, seeing only the files under
// its root (Root; by default path itself); remote bases are refused.
func (a *App) Kustomization(path string) *Kustomization {
	info := &KustomizationInfo{Path: path}
	if path == "" {
		a.errorf("kustomization: a path is required")
	}
	a.kustomizations = append(a.kustomizations, info)
	return &Kustomization{info: info}
}

// Root sets the directory every file of the kustomization lies in, for an
// overlay whose bases are outside its own directory (../base).
func (k *Kustomization) Root(dir string) *Kustomization {
	k.info.Root = dir
	return k
}

// valuesMap turns typed or map values into a JSON object's map.
func valuesMap(values any) (map[string]any, error) {
	if values == nil {
		return nil, nil
	}
	if m, ok := values.(map[string]any); ok {
		return m, nil
	}
	data, err := json.Marshal(values)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%T does not encode to a JSON object", values)
	}
	return m, nil
}

// packages returns the charts and kustomizations for the document.
func (a *App) packages() ([]ChartInfo, []KustomizationInfo) {
	var cs []ChartInfo
	for _, c := range a.charts {
		cs = append(cs, *c)
	}
	var ks []KustomizationInfo
	for _, k := range a.kustomizations {
		ks = append(ks, *k)
	}
	return cs, ks
}
