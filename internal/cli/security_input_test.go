package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// escapingName is an object name that climbs out of any directory a file
// named after it is written in and lands on base/elsewhere/victim.
func escapingName(base string) string {
	return "x/" + strings.Repeat("../", 40) + strings.TrimPrefix(base, "/") + "/elsewhere/victim"
}

// victim lays out base/elsewhere/victim.yaml holding "original" and
// returns a check that it still does and that out holds no file.
func victim(t *testing.T, base, out string) func() {
	t.Helper()
	writeFiles(t, base, map[string]string{"elsewhere/victim.yaml": "original"})
	return func() {
		t.Helper()
		if got, _ := os.ReadFile(filepath.Join(base, "elsewhere", "victim.yaml")); string(got) != "original" {
			t.Errorf("elsewhere/victim.yaml now holds %q, want it untouched", got)
		}
		entries, _ := os.ReadDir(out)
		for _, e := range entries {
			t.Errorf("a refused command wrote %s into %s", e.Name(), out)
		}
	}
}

// lowerTempDir is a temporary directory whose path is lower case, as
// render used to lower-case the file names it made from object names.
func lowerTempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "piceli-escape-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func yamlConfigMap(name string) string {
	return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + strings.ReplaceAll(quoteYAML(name), "\n", `\n`) + "\ndata:\n  shaped: by the attacker\n"
}

// quoteYAML writes s as a double-quoted YAML scalar.
func quoteYAML(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`)
	return `"` + r.Replace(s) + `"`
}

// TestSecurityRenderOutStaysInItsDirectory is hole 2 of issue 28: an object
// of a YAML composition named x/../../…/victim made render --out overwrite
// victim.yaml outside the output directory. The name is now refused (exit
// 2, naming the file, line and key) and nothing is written anywhere.
func TestSecurityRenderOutStaysInItsDirectory(t *testing.T) {
	base := lowerTempDir(t)
	out := filepath.Join(base, "out")
	check := victim(t, base, out)
	writeFiles(t, base, map[string]string{
		"release.toml":     goodTarget + "[release]\nname = \"demo\"\ncomposition = \"manifests/\"\n",
		"manifests/a.yaml": yamlConfigMap(escapingName(base)),
	})
	res := run(t, "render", "--spec", filepath.Join(base, "release.toml"), "--out", out)
	checkRefused(t, res, []string{"a.yaml:1", "metadata.name", "ConfigMap"})
	check()
}

// TestSecurityImportedModuleStaysInItsDirectory is hole 2 of issue 28 through
// import: import yaml wrote a module declaring the escaping name, whose
// render --out then wrote outside the output directory. Import now refuses
// the name, and a Go composition that declares it (as the module did) is
// refused by render before anything is written.
func TestSecurityImportedModuleStaysInItsDirectory(t *testing.T) {
	t.Parallel()
	base := lowerTempDir(t)
	out := filepath.Join(base, "rendered")
	check := victim(t, base, out)
	name := escapingName(base)
	writeFiles(t, base, map[string]string{"in/a.yaml": yamlConfigMap(name)})
	module := filepath.Join(base, "module")
	res := run(t, "import", "yaml", filepath.Join(base, "in", "a.yaml"), "--out", module, "--piceli-source", repoRoot(t))
	checkRefused(t, res, []string{"a.yaml: document 1", "metadata.name"})
	if _, err := os.Stat(module); err == nil {
		t.Errorf("a refused import created %s", module)
	}

	comp := filepath.Join(base, "comp")
	piceliModule(t, comp, "example.com/demo")
	writeFiles(t, comp, map[string]string{
		"release.toml": goodTarget + goodRelease,
		"infra.go": "package demo\n\nimport (\n\t\"github.com/pynenc/piceli/app\"\n\tcorev1 \"k8s.io/api/core/v1\"\n\tmetav1 \"k8s.io/apimachinery/pkg/apis/meta/v1\"\n)\n\n" +
			"func Build(ctx *app.Context) (*app.Composition, error) {\n\ta := app.New(\"demo\")\n" +
			"\ta.Objects(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: " + goString(name) + "}, Data: map[string]string{\"shaped\": \"by the attacker\"}})\n" +
			"\treturn a.Composition(ctx)\n}\n",
	})
	res = run(t, "render", "--spec", filepath.Join(comp, "release.toml"), "--out", out)
	checkRefused(t, res, []string{"metadata.name", "ConfigMap"})
	check()
}

func goString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s) + `"`
}

// TestSecurityImportNamesNeverBecomeCode is hole 3 of issue 28: an object
// name with a newline and "*/" ended the comment import wrote it into, and
// a func init() in it ran at import's proof render and at every later
// render. Each such name (newline, "*/", backquote, quote; on a kind that
// becomes a literal and on one with lax names) is now refused with exit 2
// naming the file, document and key: nothing is written and no generated
// code runs (the injected init would panic with the marker).
func TestSecurityImportNamesNeverBecomeCode(t *testing.T) {
	const marker = "panic: PICELI-INJECTED-CODE-RAN"
	code := `func init() { panic("PICELI-INJECTED-CODE-RAN") }`
	tests := []struct {
		name, kind, apiVersion, objName string
	}{
		{"a newline and */ in a LimitRange name", "LimitRange", "v1", "x\n*/\n" + code + "\n/*"},
		{"*/ without a newline", "LimitRange", "v1", "y*/ " + code + " /*"},
		{"a backquote ending a raw string", "ConfigMap", "v1", "q`\n" + code + "\nvar _ = `"},
		{"a quote ending a string", "ConfigMap", "v1", "w\"\n" + code + "\nvar _ = \""},
		{"a newline in a ClusterRole, whose names are lax", "ClusterRole", "rbac.authorization.k8s.io/v1", "r\n" + code},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			doc := "apiVersion: " + tt.apiVersion + "\nkind: " + tt.kind + "\nmetadata:\n  name: " + quoteYAML(tt.objName) + "\n"
			writeFiles(t, dir, map[string]string{"in.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fine}\n---\n" + doc})
			out := filepath.Join(dir, "out")
			res := run(t, "import", "yaml", filepath.Join(dir, "in.yaml"), "--out", out, "--piceli-source", repoRoot(t))
			checkRefused(t, res, []string{"in.yaml: document 2", "metadata.name", tt.kind})
			if strings.Contains(res.stderr, marker) {
				t.Errorf("the injected code ran:\n%s", res.stderr)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("a refused import created %s", out)
			}
		})
	}
}

// TestSecurityImportOfALongName is a minor item of issue 28: a valid name
// of 253 characters in a namespace of 63, written as a YAML file of the
// module, failed with a raw "file name too long". Its file name is now cut
// to fit, and the module renders the object as it was.
func TestSecurityImportOfALongName(t *testing.T) {
	t.Parallel()
	label := strings.Repeat("a", 63)
	name := strings.Join([]string{label, label, label, label[:61]}, ".")
	ns := strings.Repeat("n", 63)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"w.yaml": "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: " + name + "\n  namespace: " + ns + "\nspec: {size: 1}\n"})
	out := filepath.Join(dir, "out")
	res := run(t, "import", "yaml", filepath.Join(dir, "w.yaml"), "--out", out, "--piceli-source", repoRoot(t))
	if res.code != ExitOK {
		t.Fatalf("import yaml of a %d-character name: exit %d, stderr:\n%s", len(name), res.code, res.stderr)
	}
	files, _ := filepath.Glob(filepath.Join(out, "manifests", "*.yaml"))
	if len(files) != 1 || len(filepath.Base(files[0])) > 255 {
		t.Fatalf("manifests/ holds %q, want one file whose name fits", files)
	}
	r := run(t, "render", "--spec", filepath.Join(out, "release.toml"))
	if r.code != ExitOK || !strings.Contains(r.stdout, "name: "+name) {
		t.Errorf("render of the imported module: exit %d, stdout:\n%s\nstderr:\n%s\nwant the Widget named %s", r.code, r.stdout, r.stderr, name)
	}
}
