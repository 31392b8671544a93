package chart

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"helm.sh/helm/v4/pkg/chart/common"
	commonutil "helm.sh/helm/v4/pkg/chart/common/util"
	chartv2 "helm.sh/helm/v4/pkg/chart/v2"
	chartutil "helm.sh/helm/v4/pkg/chart/v2/util"
	"helm.sh/helm/v4/pkg/engine"
	releasev1 "helm.sh/helm/v4/pkg/release/v1"
	releaseutil "helm.sh/helm/v4/pkg/release/v1/util"

	"github.com/pynenc/piceli/internal/manifest"
	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/refusal"
)

// DefaultKubeVersion is the Kubernetes version a chart sees
// (.Capabilities.KubeVersion) when Options names none: the version of
// Piceli's sandbox, declared here so that rendering does not depend on
// the Helm SDK's own default.
const DefaultKubeVersion = "v1.36.0"

// Source is one chart of a composition.
type Source struct {
	// Path is the chart: a .tgz file or a directory.
	Path string
	// Digest pins the chart ("sha256:" and 64 hex digits, see Digest); a
	// chart with another digest is refused.
	Digest string
	// Values override the chart's values.yaml, as helm's --values does.
	Values map[string]any
}

// Options say how a chart is rendered. Release is required.
type Options struct {
	Release   string // the Helm release name (.Release.Name)
	Namespace string // .Release.Namespace
	// KubeVersion is .Capabilities.KubeVersion; empty means
	// DefaultKubeVersion.
	KubeVersion string
	// APIVersions are added to Helm's default .Capabilities.APIVersions,
	// as helm template's --api-versions does.
	APIVersions []string
	// Cluster, when set, gives the target cluster's capabilities, which
	// replace KubeVersion and Helm's default API versions (APIVersions are
	// still added). It is called once per chart, after the chart is
	// loaded and its digest checked; its error fails the render.
	Cluster func(context.Context) (*Capabilities, error)
	// Seed keys the chart's random functions (Seeded): the same seed
	// gives the same values. It must be kept private, like a secret
	// value, and have at least SeedSize bytes; nil draws fresh randomness
	// on every render.
	Seed []byte
}

// Capabilities are what a chart sees of its cluster.
type Capabilities struct {
	KubeVersion string   // "v1.36.0"
	APIVersions []string // "apps/v1", "apps/v1/Deployment", ...; sorted
}

// Render renders the chart of src and returns its objects: the CRDs of
// its crds/ folders (and its subcharts'), its templates' objects and its
// hooks, each with an origin naming the chart and template. Pre-install
// and pre-upgrade hooks are ordered before the templates' objects and
// post-install/post-upgrade hooks after them (through DependsOn), in
// weight order; test hooks are left out. A hook Piceli cannot honour, a
// dependency not vendored under charts/, a template error or a chart that
// is not src.Digest is a refusal. The same inputs give the same objects.
func Render(ctx context.Context, src Source, opts Options) ([]object.Declared, error) {
	ch, err := Load(src.Path, src.Digest)
	if err != nil {
		return nil, err
	}
	if err := checkVendored(src.Path, ch); err != nil {
		return nil, err
	}
	if opts.Seed != nil && len(opts.Seed) < SeedSize {
		return nil, fmt.Errorf("render chart %s: the seed has %d bytes, fewer than %d", src.Path, len(opts.Seed), SeedSize)
	}
	rel, err := install(ctx, ch, src.Values, opts)
	if err != nil {
		return nil, refusal.Errorf("render chart %s: %w", src.Path, err)
	}
	label := "chart " + ch.Name()
	crds, err := crdObjects(label, ch)
	if err != nil {
		return nil, err
	}
	objs, err := manifestObjects(label, rel.manifests)
	if err != nil {
		return nil, err
	}
	hooks, err := hookObjects(label, rel.hooks)
	if err != nil {
		return nil, err
	}
	uniqueOrigins(objs, hooks)
	return append(crds, order(objs, hooks)...), nil
}

// uniqueOrigins numbers the objects of one template that Helm rendered as
// separate documents, so that each origin names one object.
func uniqueOrigins(objs []object.Declared, hooks []hook) {
	all := make([]*string, 0, len(objs)+len(hooks))
	for i := range objs {
		all = append(all, &objs[i].Origin)
	}
	for i := range hooks {
		all = append(all, &hooks[i].obj.Origin)
	}
	count := map[string]int{}
	for _, o := range all {
		count[*o]++
	}
	seen := map[string]int{}
	for _, o := range all {
		if count[*o] > 1 {
			seen[*o]++
			*o = fmt.Sprintf("%s (document %d)", *o, seen[*o])
		}
	}
}

// checkVendored refuses a dependency of Chart.yaml that is not under
// charts/: Piceli fetches nothing while rendering.
func checkVendored(path string, ch *chartv2.Chart) error {
	if len(ch.Metadata.Dependencies) == 0 {
		return nil
	}
	have := map[string]bool{}
	for _, d := range ch.Dependencies() {
		have[d.Name()] = true
	}
	for _, d := range ch.Metadata.Dependencies {
		if !have[d.Name] {
			return refusal.Errorf("chart %s: dependency %q (%s) is not vendored under charts/; Piceli fetches nothing at render time: run helm dependency build and pin the result", path, d.Name, d.Repository)
		}
	}
	return nil
}

// rendered is what Helm renders of a chart: its manifests, sorted in
// Helm's install order, and its hooks.
type rendered struct {
	manifests []releaseutil.Manifest
	hooks     []*releasev1.Hook
}

// install renders ch as a client-only helm install (helm template) does:
// dependencies processed, values merged and checked against the chart's
// schema, NOTES.txt dropped, and the output sorted into manifests and
// hooks. The engine has no cluster, so lookup answers nothing.
func install(ctx context.Context, ch *chartv2.Chart, values map[string]any, opts Options) (*rendered, error) {
	caps, err := capabilities(ctx, opts)
	if err != nil {
		return nil, err
	}
	if c := ch.Metadata.KubeVersion; c != "" && !chartutil.IsCompatibleRange(c, caps.KubeVersion.String()) {
		return nil, fmt.Errorf("chart requires kubeVersion %s, incompatible with Kubernetes %s", c, caps.KubeVersion.Version)
	}
	if values == nil {
		values = map[string]any{}
	}
	if err := chartutil.ProcessDependencies(ch, values); err != nil {
		return nil, fmt.Errorf("process dependencies: %w", err)
	}
	rel := common.ReleaseOptions{Name: opts.Release, Namespace: opts.Namespace, Revision: 1, IsInstall: true}
	vals, err := commonutil.ToRenderValuesWithSchemaValidation(ch, values, rel, caps, false)
	if err != nil {
		return nil, err
	}
	random := newRandomness(opts.Seed, opts.Release, ch.Name())
	files, err := engine.Engine{CustomTemplateFuncs: random.funcs()}.RenderWithContext(ctx, ch, vals)
	if err != nil {
		return nil, err
	}
	for name := range files {
		if strings.HasSuffix(name, "NOTES.txt") {
			delete(files, name)
		}
	}
	hooks, manifests, err := releaseutil.SortManifests(files, nil, releaseutil.InstallOrder)
	if err != nil {
		return nil, err
	}
	return &rendered{manifests: manifests, hooks: hooks}, nil
}

// capabilities are the cluster's (opts.Cluster) or Helm's defaults with
// the options' Kubernetes version, and the added API versions.
func capabilities(ctx context.Context, opts Options) (*common.Capabilities, error) {
	kv := opts.KubeVersion
	if kv == "" {
		kv = DefaultKubeVersion
	}
	caps := common.DefaultCapabilities.Copy()
	if opts.Cluster != nil {
		c, err := opts.Cluster(ctx)
		if err != nil {
			return nil, err
		}
		kv = c.KubeVersion
		caps.APIVersions = common.VersionSet(append([]string(nil), c.APIVersions...))
	}
	parsed, err := common.ParseKubeVersion(kv)
	if err != nil {
		return nil, fmt.Errorf("kubernetes version %q: %w", kv, err)
	}
	caps.KubeVersion = *parsed
	caps.APIVersions = append(slices.Clone(caps.APIVersions), opts.APIVersions...)
	return caps, nil
}

// crdObjects decodes the files of every crds/ folder, in file order.
func crdObjects(label string, ch *chartv2.Chart) ([]object.Declared, error) {
	var out []object.Declared
	for _, c := range ch.CRDObjects() {
		objs, err := decode(label+" "+c.Filename, string(c.File.Data))
		if err != nil {
			return nil, err
		}
		out = append(out, objs...)
	}
	return out, nil
}

// manifestObjects decodes Helm's sorted manifests; origins name the
// template.
func manifestObjects(label string, ms []releaseutil.Manifest) ([]object.Declared, error) {
	var out []object.Declared
	for _, m := range ms {
		objs, err := decode(label+" "+m.Name, m.Content)
		if err != nil {
			return nil, err
		}
		out = append(out, objs...)
	}
	return out, nil
}

// decode decodes a rendered YAML stream; origins are name, then
// " (object N)" when the stream holds more than one object.
func decode(name, text string) ([]object.Declared, error) {
	objs, err := manifest.Decode(name, []byte(text))
	if err != nil {
		return nil, refusal.New(err)
	}
	for i := range objs {
		objs[i].Origin = name
		if len(objs) > 1 {
			objs[i].Origin = fmt.Sprintf("%s (object %d)", name, i+1)
		}
	}
	return objs, nil
}
