package cli

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pynenc/piceli/internal/artifacttest"
	"github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
	"github.com/pynenc/piceli/publish"
)

// Acceptance 4 of issue 31: publishing twice from the same inputs gives the
// same digest; the artifact is pushed to a registry on loopback and pulled
// back by digest; a plan from the layout and a plan from the registry
// reference have the hash of the plan from the source, and applying the
// plan from the artifact works (the Secret's value resolved from its
// source where the release is applied); a pull by tag is refused; a canary
// secret value is in no blob of the artifact, gunzipped or not, nor in
// any output.
func TestPublishedReleasePlansAsItsSource(t *testing.T) {
	t.Parallel()
	sb := sandboxtest.Cluster(t)
	reg := artifacttest.StartRegistry(t, "")
	r := newSecretRelease(t, sb, "", []secretKey{{key: "file", source: `app.FromFile("file", "secret/pw.txt")`}}, goComposition{})
	value := canary(t, "publish")
	r.writeSecretFile(t, "secret/pw.txt", value)
	var outputs strings.Builder
	piceli := func(want int, args ...string) string {
		t.Helper()
		res := run(t, args...)
		outputs.WriteString(res.stdout + res.stderr)
		if res.code != want {
			t.Fatalf("piceli %s: exit %d, want %d\n%s%s", strings.Join(args, " "), res.code, want, res.stdout, res.stderr)
		}
		return res.stdout
	}
	published := func(args ...string) publish.Result {
		t.Helper()
		var res publish.Result
		if err := json.Unmarshal([]byte(piceli(ExitOK, append([]string{"publish", "--spec", r.spec, "-o", "json"}, args...)...)), &res); err != nil || res.Schema != publish.ResultSchema {
			t.Fatalf("publish -o json: %v (schema %q)", err, res.Schema)
		}
		return res
	}
	planHash := func(args ...string) string {
		t.Helper()
		var p plan.Plan
		if err := json.Unmarshal([]byte(piceli(ExitOK, append([]string{"release", "plan", "--spec", r.spec, "-o", "json"}, args...)...)), &p); err != nil || p.Hash == "" {
			t.Fatalf("release plan -o json %v: %v", args, err)
		}
		return p.Hash
	}

	dir1, dir2 := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	first, second := published("--out", dir1), published("--out", dir2)
	if first.Digest != second.Digest {
		t.Errorf("two publishes of the same inputs: digests %s and %s", first.Digest, second.Digest)
	}
	pushed := published("--to", "oci://"+reg.Addr+"/releases/demo:v1")
	if want := reg.Addr + "/releases/demo@" + first.Digest; pushed.Reference != want {
		t.Errorf("pushed reference %s, want %s", pushed.Reference, want)
	}

	fromSource := planHash()
	if h := planHash("--artifact", dir1); h != fromSource {
		t.Errorf("plan from the layout: hash %s, want the source's %s", h, fromSource)
	}
	fromRegistry := planHash("--artifact", "oci://"+pushed.Reference)
	if fromRegistry != fromSource {
		t.Errorf("plan from the registry by digest: hash %s, want the source's %s", fromRegistry, fromSource)
	}
	byTag := run(t, "release", "plan", "--spec", r.spec, "--artifact", "oci://"+reg.Addr+"/releases/demo:v1")
	if byTag.code != ExitRefused || !strings.Contains(byTag.stderr, "digest") {
		t.Errorf("plan from a tag: exit %d, want %d naming the digest:\n%s", byTag.code, ExitRefused, byTag.stderr)
	}
	piceli(ExitOK, "release", "apply", "--spec", r.spec, "--artifact", "oci://"+pushed.Reference, "--approve", fromRegistry)
	if live := r.liveSecretData(t, secretName); live["file"] != value {
		t.Errorf("the Secret applied from the artifact does not hold the file source's value")
	}

	canaries := map[string]string{"file": value}
	for _, d := range []string{dir1, filepath.Join(reg.Dir, "storage")} {
		if n := sweepBlobs(t, d, canaries); n < 3 {
			t.Errorf("swept %d blobs under %s, want the manifest, config and layer at least", n, d)
		}
	}
	if l := leaks([]byte(outputs.String()), canaries); len(l) > 0 {
		t.Errorf("the commands' output holds the secret value: %s", strings.Join(l, "; "))
	}
}

// sweepBlobs searches every file under root, and the gunzipped content of
// each that is gzip, for the canaries; it returns how many files it read.
func sweepBlobs(t *testing.T, root string, canaries map[string]string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		data, err := readCapped(p)
		if err != nil {
			return err
		}
		n++
		if zr, err := gzip.NewReader(bytes.NewReader(data)); err == nil {
			unzipped, _ := io.ReadAll(io.LimitReader(zr, maxSweptFile))
			data = append(data, unzipped...)
		}
		if l := leaks(data, canaries); len(l) > 0 {
			t.Errorf("%s holds the secret value: %s", p, strings.Join(l, "; "))
		}
		return nil
	})
	if err != nil {
		t.Fatalf("sweep %s: %v", root, err)
	}
	return n
}

// publishSpec writes a release of file manifests, never applied.
func publishSpec(t *testing.T, manifests map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{"release.toml": "[target]\nkubeconfig = \"kubeconfig\"\ncontext = \"none\"\nnamespace = \"shop\"\n\n[release]\nname = \"shop\"\ncomposition = \"manifests\"\n"}
	for name, body := range manifests {
		files["manifests/"+name] = body
	}
	writeFiles(t, dir, files)
	return filepath.Join(dir, "release.toml")
}

// Bad input to publish exits 2, names what is wrong and writes nothing:
// an image not pinned by digest (naming object and image), a Secret with
// values (never quoting them), no destination or two, a directory that
// holds other files.
func TestPublishRefusesBadInput(t *testing.T) {
	const unpinned = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.27\n"
	const secret = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: creds\nstringData:\n  password: canary-publish-value\n"
	const config = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n"
	busy := t.TempDir()
	writeFiles(t, busy, map[string]string{"notes.txt": "mine"})
	cases := []struct {
		name     string
		manifest string
		args     []string
		want     []string
	}{
		{"an image not pinned by digest", unpinned, nil, []string{"Deployment/shop/web", `"nginx:1.27"`, "not pinned by digest"}},
		{"a Secret carrying values", secret, nil, []string{"Secret/shop/creds", "carries values"}},
		{"no destination", config, []string{}, []string{"one of them"}},
		{"two destinations", config, []string{"--to", "oci://127.0.0.1:1/r/shop:v1"}, []string{"one of them"}},
		{"a registry reference without a tag", config, []string{"--to", "oci://127.0.0.1:1/r/shop"}, []string{"oci://HOST/REPO:TAG"}},
		{"a directory holding other files", config, []string{"--out", busy}, []string{"notes.txt"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			spec := publishSpec(t, map[string]string{"a.yaml": tc.manifest})
			out := filepath.Join(t.TempDir(), "layout")
			args := tc.args
			if args == nil || tc.name == "two destinations" {
				args = append([]string{"--out", out}, args...)
			}
			res := run(t, append([]string{"publish", "--spec", spec}, args...)...)
			if res.code != ExitRefused {
				t.Fatalf("publish: exit %d, want %d\n%s%s", res.code, ExitRefused, res.stdout, res.stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(res.stderr, w) {
					t.Errorf("publish stderr does not name %q:\n%s", w, res.stderr)
				}
			}
			if strings.Contains(res.stdout+res.stderr, "canary-publish-value") {
				t.Errorf("publish output quotes the Secret's value:\n%s", res.stderr)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("publish wrote %s although it refused", out)
			}
			if _, err := os.Stat(filepath.Join(busy, "index.json")); err == nil {
				t.Errorf("publish wrote into %s, which holds other files", busy)
			}
		})
	}
}

// chart export writes a chart of the release; it refuses a directory that
// holds other files (exit 2, nothing written) and needs --out.
func TestChartExportRefusesBadInput(t *testing.T) {
	spec := publishSpec(t, map[string]string{"a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  a: \"1\"\n"})
	busy := t.TempDir()
	writeFiles(t, busy, map[string]string{"notes.txt": "mine"})
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"a directory holding other files", []string{"--out", busy}, "notes.txt"},
		{"no --out", nil, "--out DIR"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, append([]string{"chart", "export", "--spec", spec}, tc.args...)...)
			if res.code != ExitRefused || !strings.Contains(res.stderr, tc.want) {
				t.Errorf("chart export: exit %d, want %d naming %q\n%s", res.code, ExitRefused, tc.want, res.stderr)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(busy, "Chart.yaml")); err == nil {
		t.Error("chart export wrote into a directory it refused")
	}
	out := filepath.Join(t.TempDir(), "chart")
	res := run(t, "chart", "export", "--spec", spec, "--out", out, "-o", "json")
	var doc struct {
		Schema string
		Files  []string
	}
	if err := json.Unmarshal([]byte(res.stdout), &doc); res.code != ExitOK || err != nil || doc.Schema != "piceli.chart/v1" {
		t.Fatalf("chart export -o json: exit %d, %v, schema %q\n%s", res.code, err, doc.Schema, res.stderr)
	}
	if want := []string{"Chart.yaml", "templates/000-configmap-shop-settings.yaml", "values.schema.json", "values.yaml"}; strings.Join(doc.Files, " ") != strings.Join(want, " ") {
		t.Errorf("chart export files %v, want %v", doc.Files, want)
	}
}
