package bench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/bench/synth"
	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/render"
)

// The peers measured beside Piceli and kubectl on the rows peerRow picks.
const (
	toolHelm  = "helm"
	toolFloor = "floor"
)

// chartDir writes (once) a Helm chart holding r's objects as Piceli
// renders them (release label set) without a namespace, so that helm
// install -n puts them in its namespace. The objects are the chart's one
// template file; a text that Go templates would read as an action is
// refused rather than escaped, since it would not be the same object.
func (d dataset) chartDir(r row) (string, error) {
	dir := filepath.Join(d.dir, "charts", fmt.Sprintf("%s-%d", r.Mix, r.N))
	if _, err := os.Stat(dir); err == nil {
		return dir, nil
	}
	objs, err := synth.Objects(r.Mix, r.N)
	if err != nil {
		return "", err
	}
	return dir, writeChart(dir, objs)
}

// writeChart writes a chart named releaseName at dir whose one template is
// objs, rendered for no namespace with the release label.
func writeChart(dir string, objs []*unstructured.Unstructured) error {
	declared := make([]object.Declared, len(objs))
	for i, o := range objs {
		declared[i] = object.Declared{Origin: "synthetic", Object: o}
	}
	rendered, err := render.Objects(declared, render.Options{Release: releaseName})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, "templates"), 0o755); err != nil {
		return err
	}
	chart := "apiVersion: v2\nname: " + releaseName + "\ndescription: the synthetic release of piceli-bench\ntype: application\nversion: 0.1.0\n"
	if err := os.WriteFile(filepath.Join(dir, "Chart.yaml"), []byte(chart), 0o644); err != nil {
		return err
	}
	path := filepath.Join(dir, "templates", "objects.yaml")
	if err := writeYAML(path, render.Manifests(rendered)); err != nil {
		return err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if bytes.Contains(data, []byte("{{")) {
		return fmt.Errorf("%s holds %q, which Helm would read as a template action", path, "{{")
	}
	return nil
}

// peerRow reports whether Helm and the floor are measured on r: the
// ConfigMap releases from YAML of the sizes -peer-sizes names.
func (c config) peerRow(r row) bool {
	if r.Mix != synth.ConfigMaps || r.Format != formatYAML {
		return false
	}
	for _, n := range c.PeerSizes {
		if n == r.N {
			return true
		}
	}
	return false
}

// helmRun measures, in a new namespace, helm install of r's chart (the
// namespace created by --create-namespace) and a helm upgrade with the
// same chart, which changes nothing. Helm runs with its defaults
// (server-side apply, no wait, its client-side rate limits), its caches
// and configuration in the work directory.
func (b *bench) helmRun(ctx context.Context, r row, run int) error {
	ns := fmt.Sprintf("bench-h-%s-%d", r.slug(), run)
	chart, err := b.data.chartDir(r)
	if err != nil {
		return err
	}
	defer b.cleanup(ctx, ns)
	install, err := measure(ctx, b.c, b.helm("install", releaseName, chart, "--namespace", ns, "--create-namespace"))
	if err != nil {
		return err
	}
	b.res.add(r, opApplyFresh, toolHelm, install)
	upgrade, err := measure(ctx, b.c, b.helm("upgrade", releaseName, chart, "--namespace", ns))
	if err != nil {
		return err
	}
	b.res.add(r, opApplyNoop, toolHelm, upgrade)
	return nil
}

func (b *bench) helm(args ...string) command {
	home := filepath.Join(b.data.dir, "helm")
	base := []string{"--kubeconfig=" + b.t.Kubeconfig, "--kube-context=" + b.t.Context}
	return command{path: b.cfg.Helm, args: append(args, base...), env: []string{
		"HELM_CACHE_HOME=" + filepath.Join(home, "cache"),
		"HELM_CONFIG_HOME=" + filepath.Join(home, "config"),
		"HELM_DATA_HOME=" + filepath.Join(home, "data"),
	}}
}

// floorRun measures, in a new namespace, the floor's apply of the
// manifests kubectl applies, then the same apply again (which changes
// nothing), with Piceli's requests in flight.
func (b *bench) floorRun(ctx context.Context, r row, run int) error {
	ns := fmt.Sprintf("bench-f-%s-%d", r.slug(), run)
	file, err := b.data.kubectlFile(r, ns)
	if err != nil {
		return err
	}
	defer b.cleanup(ctx, ns)
	cmd := command{path: b.self, report: true, args: []string{"floor", "-parallel=" + strconv.Itoa(b.cfg.Parallel),
		"-kubeconfig=" + b.t.Kubeconfig, "-context=" + b.t.Context, file}}
	for _, op := range []string{opApplyFresh, opApplyNoop} {
		s, err := measure(ctx, b.c, cmd)
		if err != nil {
			return err
		}
		if s.Result.Written != r.N+1 {
			return fmt.Errorf("the floor applied %d objects, want %d", s.Result.Written, r.N+1)
		}
		b.res.add(r, op, toolFloor, s)
	}
	return nil
}

// peerOps are the operations the peers' table compares, each with what
// every tool ran for it.
var peerOps = []struct {
	op                   string
	floor, kubectl, helm string
}{
	{opApplyFresh, "apply", "`apply --server-side`", "`install`"},
	{opApplyNoop, "the same apply again", "second `apply --server-side`", "`upgrade`, same chart"},
}

// peerTable renders, for every peerRow release, Piceli's applies beside
// the floor's, kubectl's and Helm's, with Piceli's ratio to each.
func (r *results) peerTable() string {
	var b strings.Builder
	b.WriteString("| release | operation | Piceli | floor | kubectl | Helm 4 | Piceli / floor | Piceli / kubectl | Piceli / Helm | CPU s, Piceli / floor / kubectl / Helm | API requests per object, Piceli / floor / kubectl / Helm |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n")
	for _, rw := range r.cfg.rows() {
		if !r.cfg.peerRow(rw) {
			continue
		}
		for _, o := range peerOps {
			p := r.figure(cell{rw, o.op, toolPiceli})
			f := r.figure(cell{rw, o.op, toolFloor})
			k := r.figure(cell{rw, o.op, toolKubectl})
			h := r.figure(cell{rw, o.op, toolHelm})
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", rw, o.op,
				seconds(p), tagged(f, o.floor), tagged(k, o.kubectl), tagged(h, o.helm),
				ratioOf(p, f), ratioOf(p, k), ratioOf(p, h),
				joinFigures(func(x figure) string { return fmt.Sprintf("%.2f", x.CPU.Seconds()) }, p, f, k, h),
				joinFigures(func(x figure) string { return fmt.Sprintf("%.2f", x.PerObj) }, p, f, k, h))
		}
	}
	return b.String()
}

func tagged(f figure, what string) string {
	if !f.ok {
		return ""
	}
	return seconds(f) + " " + what
}

// ratioOf is a's median over b's, two decimals ("" unless both were
// measured).
func ratioOf(a, b figure) string {
	if !a.ok || !b.ok || b.Wall <= 0 {
		return ""
	}
	return fmt.Sprintf("%.2f", a.Wall.Seconds()/b.Wall.Seconds())
}

func joinFigures(show func(figure) string, fs ...figure) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = "–"
		if f.ok {
			parts[i] = show(f)
		}
	}
	return strings.Join(parts, " / ")
}

// peerAcceptance judges point 5 of issue 35 on the 1,000-ConfigMap
// release: Piceli's fresh apply within 1.15 of the floor's, its no-op
// apply at most 0.05 of kubectl's second apply.
func (r *results) peerAcceptance() []verdict {
	cm1000 := row{Mix: synth.ConfigMaps, N: 1000, Format: formatYAML}
	judge := func(what, op, peer string, limit float64) verdict {
		p, o := r.figure(cell{cm1000, op, toolPiceli}), r.figure(cell{cm1000, op, peer})
		v := verdict{What: what}
		if p.ok && o.ok {
			x := p.Wall.Seconds() / o.Wall.Seconds()
			v.done, v.Met = true, x <= limit
			v.Value = fmt.Sprintf("%.2f (%s against %s)", x, seconds(p), seconds(o))
		}
		return v
	}
	return []verdict{
		judge("5a. fresh apply of 1,000 ConfigMaps: within 1.15 of the floor's", opApplyFresh, toolFloor, 1.15),
		judge("5b. no-op apply of 1,000 ConfigMaps: at most 0.05 of kubectl's second apply", opApplyNoop, toolKubectl, 0.05),
	}
}

// verdictTable renders verdicts as a Markdown table.
func verdictTable(vs []verdict) string {
	var b strings.Builder
	b.WriteString("| target | measured | |\n| --- | --- | --- |\n")
	for _, v := range vs {
		fmt.Fprintf(&b, "| %s | %s | %s |\n", v.What, v.Value, v.status())
	}
	return b.String()
}
