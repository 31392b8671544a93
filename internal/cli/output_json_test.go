package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pynenc/piceli/internal/artifacttest"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// dataCommands are the runnable commands whose result is data: each takes
// -o json and prints one versioned document (issue 29, acceptance 2).
var dataCommands = []string{
	"access", "artifacts build", "artifacts import", "artifacts inspect", "artifacts pin",
	"codegen crd", "controller approve", "controller rollback", "controller status", "controller stop", "controller sync", "controller unpin", "controller install", "controller uninstall", "deploy", "deploy history", "deploy show", "import live", "import yaml",
	"observe forward-list", "observe logs-run", "observe status", "promote", "publish", "chart export",
	"registry install", "registry status", "registry uninstall",
	"release apply", "release archive", "release check", "release diff", "release gc", "release history",
	"release plan", "release resume", "release rollback", "release run", "release secret show",
	"release stop", "render",
	"sandbox build", "sandbox down", "sandbox load", "sandbox status", "sandbox up",
	"state export", "state import", "state key", "state migrate", "state pull", "state show", "status",
}

// notData are the runnable commands without -o, each with why its result
// is no data; a new command must join one list or the other.
var notData = map[string]string{
	"init":                   "writes a new project, named in its message",
	"observe forward-delete": "edits a preferences file",
	"observe forward-run":    "runs port-forwards until interrupted",
	"observe forward-save":   "edits a preferences file",
	"observe serve":          "serves a UI until interrupted",
}

// Every command on dataCommands takes -o json, and every runnable command
// is on dataCommands or notData.
func TestEveryDataCommandTakesOutputJSON(t *testing.T) {
	cmds := runnable(NewRoot())
	for path, c := range cmds {
		_, skip := notData[path]
		if !skip && !slices.Contains(dataCommands, path) {
			t.Errorf("%s is neither on dataCommands nor on notData", path)
		}
		if skip && c.Flags().Lookup("output") != nil {
			t.Errorf("%s takes -o: move it from notData to dataCommands", path)
		}
	}
	for _, path := range dataCommands {
		c := cmds[path]
		if c == nil {
			t.Errorf("dataCommands names %q, which is no command", path)
			continue
		}
		if f := c.Flags().ShorthandLookup("o"); f == nil || f.Name != "output" {
			t.Errorf("%s is a data command and has no -o json", path)
		}
	}
}

// schemaOf parses res's stdout as one JSON document and returns its
// "schema", failing the test unless the command exited 0.
func schemaOf(t *testing.T, res result, what string) map[string]any {
	t.Helper()
	var doc map[string]any
	if res.code != ExitOK {
		t.Fatalf("%s: exit %d\n%s%s", what, res.code, res.stdout, res.stderr)
	}
	if err := json.Unmarshal([]byte(res.stdout), &doc); err != nil {
		t.Fatalf("%s: stdout is not one JSON document: %v\n%s", what, err, res.stdout)
	}
	return doc
}

// wantSchema checks that res printed one document of schema.
func wantSchema(t *testing.T, res result, what, schema string) map[string]any {
	t.Helper()
	doc := schemaOf(t, res, what)
	if doc["schema"] != schema {
		t.Errorf("%s: schema %v, want %q\n%s", what, doc["schema"], schema, res.stdout)
	}
	return doc
}

// artifacts pin, build and inspect -o json print piceli.pin/v1 (naming
// every input), piceli.build/v1 and piceli.inspect/v1.
func TestArtifactsPinJSON(t *testing.T) {
	t.Parallel()
	spec := artifacttest.Services(t, t.TempDir())
	doc := wantSchema(t, run(t, "artifacts", "pin", "--spec", spec, "-o", "json"), "artifacts pin -o json", "piceli.pin/v1")
	if in, _ := doc["inputs"].([]any); len(in) == 0 || doc["lock"] == "" {
		t.Errorf("artifacts pin -o json: no inputs or no lock file:\n%v", doc)
	}
	doc = wantSchema(t, run(t, "artifacts", "build", "--spec", spec, "-o", "json"), "artifacts build -o json", "piceli.build/v1")
	build, _ := doc["build"].(map[string]any)
	layout, _ := build["Layout"].(string)
	if layout == "" {
		t.Fatalf("artifacts build -o json names no layout:\n%v", doc)
	}
	wantSchema(t, run(t, "artifacts", "inspect", layout, "-o", "json"), "artifacts inspect -o json", "piceli.inspect/v1")
}

// release secret show -o json is metadata only: with --reveal it is
// refused before the store is read.
func TestSecretShowJSONRefusesReveal(t *testing.T) {
	res := run(t, "release", "secret", "show", "app", "--spec", filepath.Join(t.TempDir(), "release.toml"), "-o", "json", "--reveal", "--stdout")
	if res.code != ExitRefused || !strings.Contains(res.stderr, "drop --reveal") || res.stdout != "" {
		t.Errorf("secret show -o json --reveal: exit %d, stdout %q, stderr %q; want exit 2 and nothing printed", res.code, res.stdout, res.stderr)
	}
}

// registry status, state show, pull, import and migrate and release
// history print their documents
// with -o json against the shared test sandbox.
func TestClusterCommandsJSON(t *testing.T) {
	t.Parallel()
	sb := sandboxtest.Cluster(t)
	t.Run("registry status", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "registry")
		image := "registry.invalid/distribution/registry@sha256:" + strings.Repeat("ab", 32)
		registryPlan(t, "registry", "install", "--image", image, "--dir", dir, "--kubeconfig", sb.Kubeconfig, "--context", sb.Context, "--namespace", sb.Namespace(t))
		wantSchema(t, run(t, "registry", "status", "--dir", dir, "-o", "json"), "registry status -o json", "piceli.run/v1")
	})
	t.Run("state pull, import and migrate", func(t *testing.T) {
		r := newRelease(t, sb, sharedState, smallManifests())
		r.apply(t, r.plan(t))
		doc := wantSchema(t, run(t, "state", "pull", "--spec", r.spec, "-o", "json"), "state pull -o json", "piceli.state-pull/v1")
		if g, _ := doc["generation"].(float64); g < 1 {
			t.Errorf("state pull -o json after an apply: generation %v, want 1 or more", doc["generation"])
		}
		wantSchema(t, run(t, "state", "show", "--spec", r.spec, "-o", "json"), "state show -o json", "piceli.state/v1")
		wantSchema(t, run(t, "release", "history", "--spec", r.spec, "-o", "json"), "release history -o json", "piceli.history/v1")
		dir := t.TempDir()
		pass := filepath.Join(dir, "pass")
		if err := os.WriteFile(pass, []byte("a long enough passphrase\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		export := exportedFile(t, run(t, "state", "export", "--spec", r.spec, "--out", filepath.Join(dir, "out"), "--passphrase-file", pass, "-o", "json"), "state export", "piceli.state-export/v1")
		if export != filepath.Join(dir, "out", "demo.state.age") {
			t.Errorf("state export -o json: file %s, want out/demo.state.age", export)
		}
		exportedFile(t, run(t, "release", "archive", "--spec", r.spec, "--out", filepath.Join(dir, "out"), "-o", "json"), "release archive", "piceli.archive-export/v1")
		doc = wantSchema(t, run(t, "state", "import", export, "--spec", r.spec, "--passphrase-file", pass, "-o", "json"), "state import -o json", "piceli.state-import/v1")
		if doc["release"] != "demo" || doc["file"] != export {
			t.Errorf("state import -o json: %v, want release demo and file %s", doc, export)
		}
		doc = wantSchema(t, run(t, "state", "migrate", "local", "--spec", r.spec, "-o", "json"), "state migrate -o json", "piceli.state-migrate/v1")
		if doc["to"] != "local" || doc["next"] == "" {
			t.Errorf("state migrate -o json: %v, want to local and what to do next", doc)
		}
	})
}

// exportedFile checks that res is the schema document of a command that
// wrote one file and returns the file, which must exist.
func exportedFile(t *testing.T, res result, what, schema string) string {
	t.Helper()
	doc := wantSchema(t, res, what+" -o json", schema)
	file, _ := doc["file"].(string)
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("%s -o json names file %q: %v", what, file, err)
	}
	return file
}

// onlyFile returns the one file in dir, failing the test unless there is
// exactly one.
func onlyFile(t *testing.T, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 1 {
		t.Fatalf("%s: want exactly one file, got %d (%v)", dir, len(entries), err)
	}
	return filepath.Join(dir, entries[0].Name())
}
