package importer_test

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pynenc/piceli/internal/importer"
	"github.com/pynenc/piceli/refusal"
)

// canaryManifests hold unique values in every place a Secret's value can
// be: data, stringData, kubectl's last-applied annotation, a List's item.
const canaryManifests = `apiVersion: v1
kind: Secret
metadata:
  name: api-keys
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"api-keys"},"stringData":{"token":"canary-in-last-applied-5d1e"}}'
type: Opaque
data:
  key: Y2FuYXJ5LWluLWRhdGEtOGY0Yg==
stringData:
  token: canary-in-string-data-2c7a
---
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Secret
  metadata: {name: registry}
  type: kubernetes.io/dockerconfigjson
  stringData:
    .dockerconfigjson: '{"auths":{"r.example":{"auth":"canary-in-list-item-91ad"}}}'
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
data:
  LEVEL: info
`

var canaries = []string{"canary-in-data-8f4b", "canary-in-string-data-2c7a", "canary-in-last-applied-5d1e", "canary-in-list-item-91ad"}

// TestNoSecretValueReachesTheModule is acceptance 4: Secrets with values
// in data, stringData and the last-applied annotation become declarations,
// and no value reaches a generated file or the import's log.
func TestNoSecretValueReachesTheModule(t *testing.T) {
	in := filepath.Join(t.TempDir(), "secrets.yaml")
	if err := os.WriteFile(in, []byte(canaryManifests), 0o644); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	out := filepath.Join(t.TempDir(), "module")
	res, err := importer.FromFiles(t.Context(), []string{in}, importer.Options{Out: out, Name: "canary", PiceliSource: piceliSource(t), Log: &log, CacheDir: filepath.Join(sharedDir(t), "cache")})
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	infra, err := os.ReadFile(filepath.Join(out, "infra.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, decl := range []string{`app.FromCluster("key", "api-keys", "key")`, `app.FromCluster("token", "api-keys", "token")`, `app.SecretType("kubernetes.io/dockerconfigjson")`} {
		if !strings.Contains(string(infra), decl) {
			t.Errorf("infra.go lacks %s; the Secrets were not declared by source:\n%s", decl, infra)
		}
	}
	if i := slices.IndexFunc(res.Kinds, func(k importer.KindCount) bool { return k.Kind == "Secret" }); i < 0 || res.Kinds[i] != (importer.KindCount{Kind: "Secret", Builders: 2}) {
		t.Errorf("forms by kind %+v, want the 2 Secrets as declarations (builder calls)", res.Kinds)
	}
	checkNoCanary(t, out, log.Bytes(), canaries...)
}

// TestRefusalsCarryNoSecretValue: a Secret import refuses names the
// Secret, never a value.
func TestRefusalsCarryNoSecretValue(t *testing.T) {
	in := filepath.Join(t.TempDir(), "immutable.yaml")
	body := "apiVersion: v1\nkind: Secret\nmetadata: {name: frozen}\nimmutable: true\nstringData: {password: canary-in-refused-secret-77aa}\n"
	if err := os.WriteFile(in, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "module")
	_, err := importer.FromFiles(t.Context(), []string{in}, importer.Options{Out: out, Name: "canary", PiceliSource: piceliSource(t)})
	if !refusal.Is(err) || !strings.Contains(err.Error(), "Secret/frozen") || !strings.Contains(err.Error(), "immutable.yaml: document 1") {
		t.Fatalf("import error = %v, want a refusal naming Secret/frozen and immutable.yaml: document 1", err)
	}
	if strings.Contains(err.Error(), "canary-in-refused-secret-77aa") {
		t.Errorf("the refusal carries the Secret's value: %v", err)
	}
	if _, statErr := os.Stat(out); statErr == nil {
		t.Errorf("a refused import wrote %s", out)
	}
}

// checkNoCanary fails when any of values, in any encoding, is in a file
// under dir (the release's private state directory aside) or in extra.
func checkNoCanary(t *testing.T, dir string, extra []byte, values ...string) {
	t.Helper()
	blobs := map[string][]byte{"log": extra}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			if d != nil && d.IsDir() && d.Name() == ".piceli-release" {
				return filepath.SkipDir
			}
			return err
		}
		data, err := os.ReadFile(p)
		blobs[p] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range values {
		for _, form := range encodings(c) {
			for name, data := range blobs {
				if bytes.Contains(data, []byte(form)) {
					t.Errorf("%s holds secret value %q (as %q)", name, c, form)
				}
			}
		}
	}
}

// encodings are the forms a value could leak in.
func encodings(v string) []string {
	j, _ := json.Marshal(v)
	return []string{v, base64.StdEncoding.EncodeToString([]byte(v)), base64.RawURLEncoding.EncodeToString([]byte(v)),
		hex.EncodeToString([]byte(v)), url.QueryEscape(v), string(j)}
}
