package cli

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// The acceptance tests of declared secrets (issue 6) run a Go composition
// whose Secret "app-secrets" is declared by source and read by the
// Deployment "web" through one environment variable per key.

// secretName is the declared Secret of every secretRelease.
const secretName = "app-secrets"

// secretKey is one key of app-secrets and the Go expression of its source.
type secretKey struct {
	key, source string
}

// goComposition is the composition's extras: more imports, more options
// of the Deployment web, and statements after it (the Secret handle is
// creds).
type goComposition struct {
	imports, web, body string
}

// secretRelease is a Go composition release in a fresh sandbox namespace.
type secretRelease struct {
	*testRelease
	dir   string // the release directory: release.toml, infra.go, secret/
	image string // [images] web
}

// placeholderImage is the web image of releases whose pods kwok runs: a
// digest reference nothing pulls.
const placeholderImage = "example.invalid/web@sha256:0000000000000000000000000000000000000000000000000000000000000000"

// newSecretRelease writes a release whose composition declares app-secrets
// with keys, used by the Deployment web; extra lines go to [release], and
// [values] sets broken = "no".
func newSecretRelease(t *testing.T, sb *sandboxtest.Sandbox, extra string, keys []secretKey, more goComposition) *secretRelease {
	t.Helper()
	return newImageSecretRelease(t, sb, placeholderImage, extra, keys, more)
}

// newImageSecretRelease is newSecretRelease whose web runs image.
func newImageSecretRelease(t *testing.T, sb *sandboxtest.Sandbox, image, extra string, keys []secretKey, more goComposition) *secretRelease {
	t.Helper()
	dir := t.TempDir()
	r := &secretRelease{dir: dir, image: image, testRelease: &testRelease{sb: sb, ns: sb.Namespace(t), name: "demo", spec: filepath.Join(dir, "release.toml"), stateDir: filepath.Join(dir, ".piceli-release")}}
	piceliModule(t, dir, "example.com/demo")
	writeFiles(t, dir, map[string]string{"infra.go": secretInfra(keys, more)})
	r.setBroken(t, false, extra)
	return r
}

// setBroken rewrites release.toml with [values] broken = "yes" or "no".
func (r *secretRelease) setBroken(t *testing.T, broken bool, extra string) {
	t.Helper()
	value := "no"
	if broken {
		value = "yes"
	}
	writeFiles(t, r.dir, map[string]string{"release.toml": fmt.Sprintf(`[target]
kubeconfig = %q
context = %q
namespace = %q

[release]
name = "demo"
composition = "infra.go:Build"
%s
[images]
web = %q

[values]
broken = %q
`, r.sb.Kubeconfig, r.sb.Context, r.ns, extra, r.image, value)})
}

// writeSecretFile writes a file source under the release directory,
// owner-only as a user would keep it.
func (r *secretRelease) writeSecretFile(t *testing.T, name, content string) {
	t.Helper()
	p := filepath.Join(r.dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// secretInfra is the Go source of the composition.
func secretInfra(keys []secretKey, more goComposition) string {
	var opts, envs strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&opts, "\t\t%s,\n", k.source)
		fmt.Fprintf(&envs, "\t\tapp.EnvFromSecret(%q, creds, %q),\n", strings.ToUpper(k.key), k.key)
	}
	return fmt.Sprintf(`package demo

import (
	"github.com/pynenc/piceli/app"
%s)

func Build(ctx *app.Context) (*app.Composition, error) {
	a := app.New("demo")
	creds := a.Secret(%q,
%s	)
	web := a.Deployment("web", app.Image(ctx.Image("web")),
%s%s	)
	_ = web
%s
	return a.Composition(ctx)
}
`, more.imports, secretName, opts.String(), envs.String(), more.web, more.body)
}

// revealed returns the values of a version of a secret ("" for the latest)
// as "release secret show --reveal --stdout" prints them, one key=value per
// line. Values must be single lines.
func revealed(t *testing.T, spec, name, version string) map[string]string {
	t.Helper()
	args := []string{"release", "secret", "show", name, "--spec", spec, "--reveal", "--stdout"}
	if version != "" {
		args = append(args, "--version", version)
	}
	res := run(t, args...)
	if res.code != ExitOK {
		t.Fatalf("release secret show %s --reveal --stdout: exit %d\n%s", name, res.code, res.stderr)
	}
	out := map[string]string{}
	for _, line := range strings.Split(res.stdout, "\n") {
		if k, v, ok := strings.Cut(line, "="); ok && keyName.MatchString(k) {
			out[k] = v
		}
	}
	return out
}

// keyName matches a Secret key.
var keyName = regexp.MustCompile(`^[-._a-zA-Z0-9]+$`)

// liveSecretData returns the decoded data of a live Secret.
func (r *secretRelease) liveSecretData(t *testing.T, name string) map[string]string {
	t.Helper()
	s, err := r.sb.Clientset.CoreV1().Secrets(r.ns).Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get Secret %s: %v", name, err)
	}
	out := map[string]string{}
	for k, v := range s.Data {
		out[k] = string(v)
	}
	return out
}

// templateAnnotation returns the live Deployment web's pod template
// annotation for secret name.
func (r *secretRelease) templateAnnotation(t *testing.T, name string) string {
	t.Helper()
	d, err := r.sb.Clientset.AppsV1().Deployments(r.ns).Get(t.Context(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return d.Spec.Template.Annotations["secret.piceli.dev/"+name]
}

// canary returns a value unique to this test run, with characters that
// every encoding the sweep looks for writes differently.
func canary(t *testing.T, kind string) string {
	t.Helper()
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return "canary-" + kind + "-" + hex.EncodeToString(b) + " &<ü>/+=?"
}

// canaryForms returns the ways value could be written down: raw, base64
// (standard and URL alphabets, padded and not, and the characters fixed by
// the value alone at each of the three offsets it could start at inside a
// longer base64 text), hex (both cases), URL-escaped (query and path) and
// JSON-escaped (Go's HTML-safe escaping and the plain one).
func canaryForms(value string) []string {
	raw := []byte(value)
	forms := []string{
		value,
		base64.StdEncoding.EncodeToString(raw), base64.RawStdEncoding.EncodeToString(raw),
		base64.URLEncoding.EncodeToString(raw), base64.RawURLEncoding.EncodeToString(raw),
		hex.EncodeToString(raw), strings.ToUpper(hex.EncodeToString(raw)),
		url.QueryEscape(value), url.PathEscape(value),
	}
	for off := range 3 {
		enc := base64.StdEncoding.EncodeToString(append(make([]byte, off), raw...))
		from, to := 4*((off+2)/3), 4*((off+len(raw))/3)
		forms = append(forms, enc[from:to], strings.NewReplacer("+", "-", "/", "_").Replace(enc[from:to]))
	}
	j, _ := json.Marshal(value)
	var plain bytes.Buffer
	enc := json.NewEncoder(&plain)
	enc.SetEscapeHTML(false)
	enc.Encode(value)
	forms = append(forms, strings.Trim(string(j), `"`), strings.Trim(strings.TrimSpace(plain.String()), `"`))
	return forms
}

// leaks returns, for each value found in text in any form, a description.
func leaks(text []byte, values map[string]string) []string {
	var out []string
	for name, v := range values {
		for _, form := range canaryForms(v) {
			if i := bytes.Index(text, []byte(form)); i >= 0 {
				out = append(out, fmt.Sprintf("%s (form %q at byte %d)", name, form, i))
				break
			}
		}
	}
	return out
}
