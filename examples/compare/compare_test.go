// Package compare_test checks the claim of docs/comparison.md: the Helm
// chart, the Kustomize overlay and the Piceli app in this directory render
// the same objects, after the normalisation the page documents, and the
// page shows the line counts measured here.
package compare_test

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/pynenc/piceli/release"
)

// environments are the compare app's, each with its namespace: Piceli's
// [environments], Helm's values file, Kustomize's overlay.
var environments = []struct{ name, namespace string }{
	{"dev", "compare-dev"},
	{"staging", "compare-staging"},
	{"prod", "compare-prod"},
}

// Acceptance 1 of issue 30: in each environment the chart with that
// environment's values file, the overlay of that environment and
// `render --env` give the same objects, in the same namespace.
func TestHelmKustomizeAndPiceliRenderTheSameApp(t *testing.T) {
	helm, kustomize := tools(t)
	for _, env := range environments {
		t.Run(env.name, func(t *testing.T) {
			piceli := piceliObjects(t, env.name)
			want := byName(t, "piceli", normalise(t, piceli))
			kustomized := parseYAML(t, kustomizeBuild(t, kustomize, env.name))
			for name, objs := range map[string][]*unstructured.Unstructured{
				"helm": parseYAML(t, run(t, helm, "template", "shop", "helm/shop", "--namespace", env.namespace,
					"-f", "helm/environments/"+env.name+".yaml")),
				"kustomize": kustomized,
			} {
				got := byName(t, name, normalise(t, objs))
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s renders other objects than Piceli in %s (-piceli +%s):\n%s", name, env.name, name, diff)
				}
			}
			// The normalisation drops namespaces (Helm leaves them to
			// install time): Piceli and the overlay must agree on them.
			for _, set := range [][]*unstructured.Unstructured{piceli, kustomized} {
				for _, o := range set {
					if o.GetNamespace() != env.namespace {
						t.Errorf("%s/%s is in namespace %q, want %q", o.GetKind(), o.GetName(), o.GetNamespace(), env.namespace)
					}
				}
			}
		})
	}
}

// The environments really differ: a comparison that passed because every
// environment rendered the same objects would prove nothing.
func TestTheEnvironmentsDiffer(t *testing.T) {
	seen := map[string]string{}
	for _, env := range environments {
		objs := byName(t, "piceli", normalise(t, piceliObjects(t, env.name)))
		web := objs["Deployment/web"]["spec"].(map[string]any)["replicas"]
		level := objs["ConfigMap/shop-config"]["data"].(map[string]any)["LOG_LEVEL"]
		claims := objs["StatefulSet/db"]["spec"].(map[string]any)["volumeClaimTemplates"].([]any)
		storage := claims[0].(map[string]any)["spec"].(map[string]any)["resources"].(map[string]any)["requests"].(map[string]any)["storage"]
		key := fmt.Sprint(web, level, storage)
		if other, dup := seen[key]; dup {
			t.Errorf("%s renders as %s does (web replicas %v, log level %v, storage %v)", env.name, other, web, level, storage)
		}
		seen[key] = env.name
	}
}

// The page's table shows the line counts of the three sources, as counted
// here: lines that are neither blank nor only a comment.
func TestComparisonPageShowsMeasuredLineCounts(t *testing.T) {
	page, err := os.ReadFile("../../docs/comparison.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range []struct {
		row   string
		files []string
	}{
		{"Piceli", []string{"piceli/infra.go", "piceli/release.toml"}},
		{"Helm", globs(t, "helm/shop/Chart.yaml", "helm/shop/values.yaml", "helm/shop/templates/*", "helm/environments/*.yaml")},
		{"Kustomize", globs(t, "kustomize/base/*.yaml", "kustomize/overlays/*/kustomization.yaml")},
	} {
		n := 0
		for _, f := range src.files {
			n += codeLines(t, f)
		}
		row := regexp.MustCompile(`(?m)^\| ` + src.row + ` \| (\d+) \|`).FindSubmatch(page)
		if row == nil || string(row[1]) != fmt.Sprint(n) {
			t.Errorf("docs/comparison.md: the %s row should show %d lines (%d files: %v); it shows %q", src.row, n, len(src.files), src.files, row)
		}
	}
}

func piceliObjects(t *testing.T, env string) []*unstructured.Unstructured {
	t.Helper()
	r, err := release.Open("piceli/release.toml", release.Options{CacheDir: t.TempDir(), Env: env})
	if err != nil {
		t.Fatal(err)
	}
	objs, err := r.Render(t.Context(), release.RenderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

// kustomizeBuild builds an environment's overlay in a copy holding the
// password file an operator would keep beside it (never committed).
func kustomizeBuild(t *testing.T, kustomize, env string) []byte {
	t.Helper()
	return run(t, kustomize, "build", kustomizeCopy(t, env))
}

// kustomizeCopy copies kustomize/ into a temporary directory with the
// password file of env's overlay and returns the overlay's path there.
func kustomizeCopy(t *testing.T, env string) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("cp", "-r", "kustomize", dir).CombinedOutput(); err != nil {
		t.Fatalf("copy kustomize: %v\n%s", err, out)
	}
	overlay := filepath.Join(dir, "kustomize", "overlays", env)
	if err := os.WriteFile(filepath.Join(overlay, "db-password.txt"), []byte("not-a-real-password"), 0o600); err != nil {
		t.Fatal(err)
	}
	return overlay
}

func run(t *testing.T, bin string, args ...string) []byte {
	t.Helper()
	var stderr bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(bin), strings.Join(args, " "), err, stderr.String())
	}
	return out
}

func parseYAML(t *testing.T, doc []byte) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(doc), 4096)
	for {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			if err.Error() == "EOF" {
				return out
			}
			t.Fatalf("parse rendered YAML: %v", err)
		}
		if m != nil {
			out = append(out, &unstructured.Unstructured{Object: m})
		}
	}
}

// byName indexes objects by kind and name, refusing duplicates.
func byName(t *testing.T, tool string, objs []map[string]any) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for _, o := range objs {
		u := unstructured.Unstructured{Object: o}
		key := u.GetKind() + "/" + u.GetName()
		if _, dup := out[key]; dup {
			t.Fatalf("%s renders %s twice", tool, key)
		}
		out[key] = o
	}
	return out
}

func globs(t *testing.T, patterns ...string) []string {
	t.Helper()
	var out []string
	for _, p := range patterns {
		m, err := filepath.Glob(p)
		if err != nil || len(m) == 0 {
			t.Fatalf("no file matches %s", p)
		}
		out = append(out, m...)
	}
	slices.Sort(out)
	return out
}

// codeLines counts lines that are neither blank nor only a comment (#,
// //, or a Helm {{/* */}} comment).
func codeLines(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "//") || strings.HasPrefix(line, "{{- /*") {
			continue
		}
		n++
	}
	return n
}
