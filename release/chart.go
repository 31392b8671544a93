package release

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/pynenc/piceli/internal/helmchart"
	"github.com/pynenc/piceli/internal/localpath"
)

// ChartSchema versions a ChartExport.
const ChartSchema = "piceli.chart/v1"

// ChartExport is what ExportChart wrote: the chart's directory and its
// files, relative to it, sorted.
type ChartExport struct {
	Schema string   `json:"schema"` // ChartSchema
	Dir    string   `json:"dir"`
	Files  []string `json:"files"`
}

// ChartOptions tune ExportChart. The zero value is valid.
type ChartOptions struct {
	// Version is the chart's version; empty means 0.1.0.
	Version string
}

// chartEntries are the names a chart directory may hold for ExportChart to
// write into it again.
var chartEntries = map[string]bool{"Chart.yaml": true, "values.yaml": true, "values.schema.json": true, "templates": true}

// ExportChart renders the release and writes it into dir as a Helm chart:
// Chart.yaml, values.yaml (images, replicas, resources, Ingress hosts,
// ConfigMap entries), a generated values.schema.json that refuses unknown
// keys, and one template per object (Secrets as declarations, without
// values). `helm template` of it gives the objects Render gives. A dir
// holding anything but an earlier export is refused (refusal.Is) before
// anything is written; an earlier export's templates are replaced. It
// never contacts a cluster.
func (r *Release) ExportChart(ctx context.Context, dir string, opts ChartOptions) (*ChartExport, error) {
	if err := checkChartDir(dir); err != nil {
		return nil, err
	}
	objs, err := r.Render(ctx, RenderOptions{})
	if err != nil {
		return nil, err
	}
	sp, err := r.composedSpec()
	if err != nil {
		return nil, err
	}
	files, err := helmchart.Export(objs, helmchart.Options{Name: r.Name(), Version: opts.Version, Images: sp.Images})
	if err != nil {
		return nil, refuse(err)
	}
	return writeChart(dir, files)
}

func checkChartDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return refusef("export chart to %s: %w", dir, err)
	}
	for _, e := range entries {
		if !chartEntries[e.Name()] {
			return refusef("export chart to %s: the directory holds %s, which is no part of an exported chart; choose an empty directory", dir, e.Name())
		}
	}
	return nil
}

func writeChart(dir string, files map[string][]byte) (*ChartExport, error) {
	if err := os.RemoveAll(filepath.Join(dir, "templates")); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	out := &ChartExport{Schema: ChartSchema, Dir: dir}
	for name, data := range files {
		if err := localpath.WriteFile(dir, name, data, 0o644); err != nil {
			return nil, err
		}
		out.Files = append(out.Files, name)
	}
	sort.Strings(out.Files)
	return out, nil
}
