package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pynenc/piceli/internal/manifest"
)

var examples = []string{"hello", "shop", "mixed"}

// exampleEnvironments are the environments of the examples whose
// release.toml declares some.
var exampleEnvironments = map[string][]string{"shop": {"dev", "staging", "prod"}}

func TestRenderExamplesIsByteIdentical(t *testing.T) {
	t.Parallel()
	for _, ex := range examples {
		t.Run(ex, func(t *testing.T) {
			buildExample(t, ex)
			spec := filepath.Join(repoRoot(t), "examples", ex, "release.toml")
			envs := exampleEnvironments[ex]
			if envs == nil {
				envs = []string{""}
			}
			for _, env := range envs {
				args := []string{"render", "--spec", spec}
				if env != "" {
					args = append(args, "--env", env)
				}
				for _, format := range []string{"yaml", "json"} {
					first := run(t, append(args, "-o", format)...)
					second := run(t, append(args, "-o", format)...)
					if first.code != 0 {
						t.Fatalf("render %s %s -o %s: exit %d: %s", ex, env, format, first.code, first.stderr)
					}
					if first.stdout != second.stdout {
						t.Errorf("render %s %s -o %s differs between two runs", ex, env, format)
					}
				}
			}
		})
	}
}

func TestRenderHelloQuickStart(t *testing.T) {
	buildExample(t, "hello")
	res := run(t, "render", "--spec", filepath.Join(repoRoot(t), "examples", "hello", "release.toml"))
	if res.code != 0 {
		t.Fatalf("render hello: exit %d: %s", res.code, res.stderr)
	}
	docs, err := manifest.Decode("render output", []byte(res.stdout))
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 2 || docs[0].Object.GetKind() != "Service" || docs[1].Object.GetKind() != "Deployment" {
		t.Fatalf("render hello gave %d objects, want a Service then a Deployment:\n%s", len(docs), res.stdout)
	}
	svc, dep := docs[0].Object.Object, docs[1].Object.Object
	selector := nested(t, svc, "spec", "selector").(map[string]any)
	podLabels := nested(t, dep, "spec", "template", "metadata", "labels").(map[string]any)
	depSelector := nested(t, dep, "spec", "selector", "matchLabels").(map[string]any)
	for k, v := range selector {
		if podLabels[k] != v || depSelector[k] != v {
			t.Errorf("service selector %s=%v does not match pod labels %v / deployment selector %v", k, v, podLabels, depSelector)
		}
	}
	c := nested(t, dep, "spec", "template", "spec", "containers").([]any)[0].(map[string]any)
	if img := c["image"].(string); !strings.HasPrefix(img, "piceli.local/hello/web@sha256:") {
		t.Errorf("container image = %q, want the digest of the web image built from build.toml", img)
	}
	if got := nested(t, c, "readinessProbe", "httpGet", "path"); got != "/" {
		t.Errorf("readiness probe path = %v, want /", got)
	}
	port := nested(t, svc, "spec", "ports").([]any)[0].(map[string]any)
	if port["port"] != int64(80) || port["targetPort"] != int64(8080) || nested(t, c, "ports").([]any)[0].(map[string]any)["containerPort"] != int64(8080) {
		t.Errorf("service port %v / container ports %v, want 80 on the Service to 8080 in the container", port, c["ports"])
	}
	if docs[1].Object.GetNamespace() != "hello" {
		t.Errorf("deployment namespace = %q, want the target namespace hello", docs[1].Object.GetNamespace())
	}
}

func nested(t *testing.T, m map[string]any, path ...string) any {
	t.Helper()
	var cur any = m
	for _, p := range path {
		mm, ok := cur.(map[string]any)
		if !ok {
			t.Fatalf("path %v: %s is not an object", path, p)
		}
		cur = mm[p]
	}
	return cur
}

func TestRenderOutDir(t *testing.T) {
	buildExample(t, "hello")
	out := t.TempDir()
	res := run(t, "render", "--spec", filepath.Join(repoRoot(t), "examples", "hello", "release.toml"), "--out", out)
	if res.code != 0 {
		t.Fatalf("render --out: exit %d: %s", res.code, res.stderr)
	}
	entries, _ := os.ReadDir(out)
	if len(entries) != 2 || entries[0].Name() != "000-service-hello-web.yaml" || entries[1].Name() != "001-deployment-hello-web.yaml" {
		t.Errorf("render --out wrote %v, want one file per object in apply order", entries)
	}
}

// TestRenderMixedKeepsEverySourceInStageOrder renders the example that
// mixes typed builders, k8s.io/api objects and YAML/JSON files: every
// object comes out, in the documented order (stage, then group, kind,
// namespace and name), whatever its source.
func TestRenderMixedKeepsEverySourceInStageOrder(t *testing.T) {
	buildExample(t, "mixed")
	res := run(t, "render", "--spec", filepath.Join(repoRoot(t), "examples", "mixed", "release.toml"))
	if res.code != 0 {
		t.Fatalf("render mixed: exit %d: %s", res.code, res.stderr)
	}
	docs, err := manifest.Decode("render output", []byte(res.stdout))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range docs {
		got = append(got, d.Object.GetKind()+"/"+d.Object.GetName())
	}
	want := []string{
		"ServiceAccount/echo",      // extras.json (a List)
		"ConfigMap/echo-settings",  // echo.yaml
		"ConfigMap/greeting",       // k8s.io/api object
		"Service/echo",             // echo.yaml
		"Service/web",              // typed builder
		"Deployment/echo",          // k8s.io/api object
		"Deployment/web",           // typed builder
		"PodDisruptionBudget/echo", // extras.json (a List)
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("render mixed order:\n got %v\nwant %v", got, want)
	}
}
