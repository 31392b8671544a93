package importgen

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/pynenc/piceli/internal/localpath"
	"github.com/pynenc/piceli/internal/spec"
)

// yamlSet is the YAML files of the objects without Go types, in input
// order.
type yamlSet struct {
	paths []string
	files map[string][]byte
}

// yamlFiles writes each File object to manifests/<kind>-<name>.yaml.
func (g *gen) yamlFiles() (yamlSet, error) {
	set := yamlSet{files: map[string][]byte{}}
	for _, d := range g.decls {
		if d.form != File {
			continue
		}
		data, err := yaml.Marshal(d.obj.Object)
		if err != nil {
			return set, fmt.Errorf("%s (%s): encode YAML: %w", d.ref, d.src, err)
		}
		p := g.yamlPath(d, set.files)
		set.paths = append(set.paths, p)
		set.files[p] = append([]byte("# "+commentf("%s, imported by piceli import.", d.ref)+"\n"), data...)
	}
	return set, nil
}

// yamlPath names an object's file after its kind, namespace (other than
// the target's) and name, made a file name by localpath.Key (so a long
// name is cut to fit), numbered when two would share one.
func (g *gen) yamlPath(d *decl, taken map[string][]byte) string {
	parts := []string{d.ref.Kind}
	if d.ref.Namespace != "" {
		parts = append(parts, d.ref.Namespace)
	}
	base := localpath.Key(strings.Join(append(parts, d.ref.Name), "-"))
	p := path.Join("manifests", base+".yaml")
	for i := 2; taken[p] != nil; i++ {
		p = path.Join("manifests", fmt.Sprintf("%s-%d.yaml", base, i))
	}
	return p
}

// releaseTOML writes the release spec: the target, the release and the
// images found.
func (g *gen) releaseTOML() []byte {
	t := g.in.Target
	var b strings.Builder
	b.WriteString("# The release spec piceli import wrote. Piceli never falls back to\n")
	b.WriteString("# ~/.kube/config, $KUBECONFIG or a current-context: name both here.\n\n[target]\n")
	tomlLine(&b, "kubeconfig", t.Kubeconfig, "cluster.kubeconfig", "edit: a kubeconfig file of your cluster")
	tomlLine(&b, "context", t.Context, "my-cluster", "edit: a context in that file")
	tomlLine(&b, "namespace", t.Namespace, "", "")
	if len(t.Namespaces) > 0 {
		var qs []string
		for _, ns := range t.Namespaces {
			qs = append(qs, tomlString(ns))
		}
		fmt.Fprintf(&b, "# Some objects live in other namespaces; a plan may write only to these.\nnamespaces = [%s]\n", strings.Join(qs, ", "))
	}
	b.WriteString("\n[release]\n")
	tomlLine(&b, "name", g.in.App, "", "")
	b.WriteString("composition = \"infra.go:Build\"\nstate_dir = \".piceli-release\"\n")
	g.imagesTOML(&b)
	return []byte(b.String())
}

// imagesTOML writes [images], allowing unpinned images when there are
// some: they were imported as they were.
func (g *gen) imagesTOML(b *strings.Builder) {
	images := g.images.used
	names := slices.Sorted(maps.Keys(images))
	if slices.ContainsFunc(names, func(n string) bool { return !spec.Pinned(images[n]) }) {
		b.WriteString("# Some images are not pinned by digest (name@sha256:...). Pin them, then\n# remove this line.\nallow_unpinned_images = true\n")
	}
	if len(names) == 0 {
		return
	}
	b.WriteString("\n[images]\n")
	for _, n := range names {
		fmt.Fprintf(b, "%s = %s\n", n, tomlString(images[n]))
	}
}

// tomlLine writes key = "value", or the placeholder with a note to edit it
// when value is empty.
func tomlLine(b *strings.Builder, key, value, placeholder, note string) {
	if value != "" || placeholder == "" {
		fmt.Fprintf(b, "%s = %s\n", key, tomlString(value))
		return
	}
	fmt.Fprintf(b, "%s = %s  # %s\n", key, tomlString(placeholder), note)
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\u%04X", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// goMod writes the module file, Piceli reached through a replace
// directive as piceli init does.
func (g *gen) goMod() []byte {
	return []byte(fmt.Sprintf(`module %s

go 1.26

require github.com/pynenc/piceli v0.0.0

// Piceli is reached from a local checkout until it is served by the Go
// module proxy. Remove this line to use a published version.
replace github.com/pynenc/piceli => %s
`, g.in.Module, strconv.Quote(g.in.PiceliSource)))
}
