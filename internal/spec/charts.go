package spec

import (
	"fmt"
	"regexp"

	"github.com/BurntSushi/toml"
)

// Chart is a [[charts]] entry: a vendored Helm chart rendered into the
// release's objects.
type Chart struct {
	Path   string // the chart, a .tgz file or a directory; absolute
	Digest string // "sha256:" and 64 hex digits; the chart must have it
	// Name is the Helm release name the chart sees (.Release.Name); empty
	// means the release's name.
	Name string
	// ValuesFile is a YAML values file (absolute), read when the release
	// is rendered; empty means none. Values override it.
	ValuesFile string
	Values     map[string]any // the [charts.values] table; nil when absent
}

// Kustomization is a [[kustomizations]] entry: a local kustomization
// directory rendered into the release's objects.
type Kustomization struct {
	Path string // the directory holding kustomization.yaml; absolute
	// Root is the directory all its files lie in (bases such as ../base
	// included); absolute. Empty means Path.
	Root string
}

type rawChart struct {
	Path       *string        `toml:"path"`
	Digest     *string        `toml:"digest"`
	Name       *string        `toml:"name"`
	ValuesFile *string        `toml:"values_file"`
	Values     map[string]any `toml:"values"`
}

type rawKustomization struct {
	Path *string `toml:"path"`
	Root *string `toml:"root"`
}

// packageKeys are the keys of [[charts]] and [[kustomizations]], for
// unknown-key hints.
var packageKeys = map[string]string{
	"charts":         "path, digest, name, values_file, values",
	"kustomizations": "path, root",
}

var chartDigest = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// decodePackages decodes every [[charts]] and [[kustomizations]] entry.
func (p *parser) decodePackages(charts, kusts []toml.Primitive, d *decoded) {
	d.charts = make([]rawChart, len(charts))
	for i, prim := range charts {
		p.primitive(prim, &d.charts[i], indexKey("charts", i), d)
	}
	d.kustomizations = make([]rawKustomization, len(kusts))
	for i, prim := range kusts {
		p.primitive(prim, &d.kustomizations[i], indexKey("kustomizations", i), d)
	}
}

// packages validates the decoded entries into s.
func (p *parser) packages(d *decoded, s *Spec) {
	for i, r := range d.charts {
		key := fmt.Sprintf("charts[%d]", i)
		c := Chart{Path: p.path(p.required(key+".path", r.Path, "")), Values: r.Values}
		c.Digest = p.required(key+".digest", r.Digest, ` ("sha256:..."; a wrong one is refused with the chart's own)`)
		if c.Digest != "" && !chartDigest.MatchString(c.Digest) {
			p.errs.Add(key+".digest", `%q is not "sha256:" and 64 lowercase hex digits`, c.Digest)
		}
		if r.Name != nil {
			c.Name = *r.Name
		}
		if r.ValuesFile != nil {
			c.ValuesFile = p.path(*r.ValuesFile)
		}
		s.Charts = append(s.Charts, c)
	}
	for i, r := range d.kustomizations {
		path := p.required(fmt.Sprintf("kustomizations[%d].path", i), r.Path, "")
		k := Kustomization{Path: p.path(path)}
		if r.Root != nil {
			k.Root = p.path(*r.Root)
		}
		s.Kustomizations = append(s.Kustomizations, k)
	}
}

// freeForm reports whether k lies in a table whose keys are the user's
// own: a chart's values, which the chart's schema (if any) checks.
func freeForm(k toml.Key) bool {
	return len(k) > 2 && k[0] == "charts" && k[1] == "values"
}
