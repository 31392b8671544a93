package chart

import (
	"bytes"
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pynenc/piceli/refusal"
)

// randomTemplate calls every seeded function, randAlphaNum twice with the
// same arguments.
const randomTemplate = `apiVersion: v1
kind: Secret
metadata: {name: random}
stringData:
  alnum: {{ randAlphaNum 32 | quote }}
  alnum2: {{ randAlphaNum 32 | quote }}
  alpha: {{ randAlpha 20 | quote }}
  numeric: {{ randNumeric 12 | quote }}
  ascii: {{ randAscii 16 | quote }}
  bytes: {{ randBytes 24 | quote }}
  int: {{ randInt 10 20 | quote }}
  uuid: {{ uuidv4 | quote }}
  shuffled: {{ shuffle "abcdefghijklmnop" | quote }}
`

// randomChart writes a chart whose templates/random.yaml is body.
func randomChart(t *testing.T, body string) Source {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "rnd")
	if err := os.MkdirAll(filepath.Join(dir, "templates"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(dir, "Chart.yaml", "apiVersion: v2\nname: rnd\nversion: 1.0.0\n")
	write(dir, "templates/random.yaml", body)
	d, err := Digest(dir)
	if err != nil {
		t.Fatal(err)
	}
	return Source{Path: dir, Digest: d}
}

func renderRandom(t *testing.T, src Source, seed []byte, release string) map[string]string {
	t.Helper()
	objs, err := Render(t.Context(), src, Options{Release: release, Namespace: "apps", Seed: seed})
	if err != nil {
		t.Fatalf("Render() error = %v", err)
	}
	out := map[string]string{}
	for k, v := range objs[0].Object.Object["stringData"].(map[string]any) {
		out[k] = v.(string)
	}
	return out
}

func TestSeededRandomFunctionsRepeatPerSeedAndKeepTheirForm(t *testing.T) {
	src := randomChart(t, randomTemplate)
	seed := bytes.Repeat([]byte{7}, SeedSize)
	first := renderRandom(t, src, seed, "demo")
	again := renderRandom(t, src, seed, "demo")
	other := renderRandom(t, src, bytes.Repeat([]byte{8}, SeedSize), "demo")
	otherRelease := renderRandom(t, src, seed, "demo2")
	forms := map[string]*regexp.Regexp{
		"alnum": regexp.MustCompile(`^[A-Za-z0-9]{32}$`), "alnum2": regexp.MustCompile(`^[A-Za-z0-9]{32}$`),
		"alpha": regexp.MustCompile(`^[A-Za-z]{20}$`), "numeric": regexp.MustCompile(`^[0-9]{12}$`),
		"ascii": regexp.MustCompile(`^[ -~]{16}$`), "int": regexp.MustCompile(`^1[0-9]$`),
		"uuid":     regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`),
		"shuffled": regexp.MustCompile(`^[a-p]{16}$`),
	}
	for key, v := range first {
		if re, ok := forms[key]; ok && !re.MatchString(v) {
			t.Errorf("%s = %q, not of the form %s", key, v, re)
		}
		if v != again[key] {
			t.Errorf("%s differs between two renders with one seed: %q, then %q", key, v, again[key])
		}
		if key != "int" && (v == other[key] || v == otherRelease[key]) {
			t.Errorf("%s = %q for another seed or another release too", key, v)
		}
	}
	if b, err := base64.StdEncoding.DecodeString(first["bytes"]); err != nil || len(b) != 24 {
		t.Errorf("bytes = %q, want 24 bytes base64-encoded (%v)", first["bytes"], err)
	}
	if first["alnum"] == first["alnum2"] {
		t.Errorf("two calls of randAlphaNum 32 gave one value %q", first["alnum"])
	}
	if first["shuffled"] == "abcdefghijklmnop" {
		t.Errorf("shuffle left its string in order")
	}
}

func TestUnseededRandomFunctionsDrawFreshValues(t *testing.T) {
	src := randomChart(t, randomTemplate)
	if a, b := renderRandom(t, src, nil, "demo"), renderRandom(t, src, nil, "demo"); a["alnum"] == b["alnum"] {
		t.Errorf("two renders without a seed gave one randAlphaNum %q", a["alnum"])
	}
	if _, err := Render(t.Context(), src, Options{Release: "demo", Seed: []byte("short")}); err == nil {
		t.Errorf("Render() with a 5-byte seed succeeded, want an error")
	}
}

func TestRandomFunctionsWithoutAReplayableSeedAreRefused(t *testing.T) {
	calls := map[string]string{
		"genPrivateKey": `genPrivateKey "rsa"`, "genCA": `genCA "ca" 365`, "genSelfSignedCert": `genSelfSignedCert "x" nil nil 365`,
		"genSignedCert": `genSignedCert "x" nil nil 365 .Values.ca`, "bcrypt": `bcrypt "pw"`, "htpasswd": `htpasswd "u" "pw"`,
		"encryptAES": `encryptAES "k" "text"`, "now": `now`, "genCAWithKey": `genCAWithKey "ca" 365 "key"`,
	}
	for fn, call := range calls {
		t.Run(fn, func(t *testing.T) {
			src := randomChart(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata:\n  v: {{ "+call+" | toString | quote }}\n")
			_, err := Render(context.Background(), src, Options{Release: "demo", Seed: bytes.Repeat([]byte{1}, SeedSize)})
			if err == nil || !refusal.Is(err) {
				t.Fatalf("Render() error = %v, want a refusal", err)
			}
			for _, want := range []string{"rnd/templates/random.yaml", fn, "Piceli refuses " + fn, "set the value in the chart's values"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("Render() error = %v, want it to name %q", err, want)
				}
			}
		})
	}
}

func TestClusterCapabilitiesReplaceTheDefaults(t *testing.T) {
	src := randomChart(t, `apiVersion: v1
kind: ConfigMap
metadata: {name: caps}
data:
  kube: {{ .Capabilities.KubeVersion.Version | quote }}
  x: {{ .Capabilities.APIVersions.Has "x.piceli.dev/v1" | quote }}
  batch: {{ .Capabilities.APIVersions.Has "batch/v1" | quote }}
`)
	data := func(opts Options) map[string]any {
		opts.Release = "demo"
		objs, err := Render(t.Context(), src, opts)
		if err != nil {
			t.Fatal(err)
		}
		return objs[0].Object.Object["data"].(map[string]any)
	}
	offline := data(Options{})
	if offline["kube"] != DefaultKubeVersion || offline["x"] != "false" || offline["batch"] != "true" {
		t.Errorf("offline data = %v, want the default version %s, no x.piceli.dev/v1, batch/v1", offline, DefaultKubeVersion)
	}
	calls := 0
	cluster := func(context.Context) (*Capabilities, error) {
		calls++
		return &Capabilities{KubeVersion: "v1.31.4", APIVersions: []string{"v1", "x.piceli.dev/v1"}}, nil
	}
	got := data(Options{Cluster: cluster})
	if got["kube"] != "v1.31.4" || got["x"] != "true" || got["batch"] != "false" || calls != 1 {
		t.Errorf("data against the cluster = %v (%d discovery calls), want v1.31.4, x.piceli.dev/v1 and no batch/v1 (the cluster's set replaces the defaults)", got, calls)
	}
}
