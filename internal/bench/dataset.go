package bench

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/pynenc/piceli/internal/bench/synth"
	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/render"
)

// Composition formats.
const (
	formatYAML = "yaml"
	formatGo   = "go"
)

// releaseName names every synthetic release.
const releaseName = "bench"

// row is one synthetic release: its mix, size and composition format.
type row struct {
	Mix    synth.Mix
	N      int
	Format string
}

func (r row) String() string { return fmt.Sprintf("%s %d %s", r.Mix, r.N, r.Format) }

// slug names the row in namespaces and directories: "cm-1000-y".
func (r row) slug() string {
	m := "cm"
	if r.Mix == synth.Mixed {
		m = "mix"
	}
	return fmt.Sprintf("%s-%d-%s", m, r.N, r.Format[:1])
}

// dataset writes the files of the benchmark's releases under dir.
type dataset struct {
	dir  string
	repo string // the Piceli source tree, holding the Go composition
}

// manifestsDir writes (once) the YAML composition of r's objects.
func (d dataset) manifestsDir(r row) (string, error) {
	dir := filepath.Join(d.dir, "data", fmt.Sprintf("%s-%d", r.Mix, r.N))
	if _, err := os.Stat(dir); err == nil {
		return dir, nil
	}
	objs, err := synth.Objects(r.Mix, r.N)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	return dir, writeYAML(filepath.Join(dir, "objects.yaml"), objs)
}

// spec writes a release.toml for r targeting namespace ns, with its own
// state directory, and returns its path.
func (d dataset) spec(r row, ns string, t target) (string, error) {
	composition := goComposition(d.repo) + ":Build"
	if r.Format == formatYAML {
		dir, err := d.manifestsDir(r)
		if err != nil {
			return "", err
		}
		composition = dir
	}
	dir := filepath.Join(d.dir, "releases", ns)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	toml := fmt.Sprintf(`[target]
kubeconfig = %q
context = %q
namespace = %q

[release]
name = %q
composition = %q
state_dir = %q
ready_timeout = "10m"

[values]
mix = %q
objects = "%d"
`, t.Kubeconfig, t.Context, ns, releaseName, composition, filepath.Join(dir, "state"), r.Mix, r.N)
	path := filepath.Join(dir, "release.toml")
	return path, os.WriteFile(path, []byte(toml), 0o644)
}

// kubectlFile writes the manifests kubectl applies for r in namespace ns:
// the objects Piceli renders for that target (namespace set, release
// label added, Secret values kept), after a Namespace labelled as the one
// Piceli creates.
func (d dataset) kubectlFile(r row, ns string) (string, error) {
	objs, err := synth.Objects(r.Mix, r.N)
	if err != nil {
		return "", err
	}
	declared := make([]object.Declared, len(objs))
	for i, o := range objs {
		declared[i] = object.Declared{Origin: "synthetic", Object: o}
	}
	rendered, err := render.Objects(declared, render.Options{Namespace: ns, Release: releaseName})
	if err != nil {
		return "", err
	}
	namespace := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace"}}
	namespace.SetName(ns)
	namespace.SetLabels(map[string]string{object.ReleaseLabel: releaseName})
	path := filepath.Join(d.dir, "kubectl", ns+".yaml")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", err
	}
	return path, writeYAML(path, append([]*unstructured.Unstructured{namespace}, render.Manifests(rendered)...))
}

// goComposition is the file of the Go composition of the synthetic
// releases in the Piceli source tree at repo.
func goComposition(repo string) string {
	return filepath.Join(repo, "cmd", "piceli-bench", "synthetic", "infra.go")
}

// writeYAML writes objects as one multi-document YAML file.
func writeYAML(path string, objs []*unstructured.Unstructured) error {
	var buf bytes.Buffer
	for _, o := range objs {
		data, err := yaml.Marshal(o.Object)
		if err != nil {
			return fmt.Errorf("encode %s: %w", object.RefOf(o), err)
		}
		buf.WriteString("---\n")
		buf.Write(data)
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}
