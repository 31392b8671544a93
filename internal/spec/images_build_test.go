package spec

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// An [images] entry may name an image of the build.toml beside the spec
// instead of a reference; the release resolves it to a digest.
func TestParseImagesFromABuild(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	dir := t.TempDir()
	src := strings.Replace(good, `web = "docker.io/library/nginx@`+digest+`"`,
		`web = "docker.io/library/nginx@`+digest+`"`+"\napi = { build = \"api\" }\nworker = { build = \"worker\", registry = \"localhost:5000\" }", 1)
	s, err := Parse(filepath.Join(dir, "release.toml"), []byte(src))
	if err != nil {
		t.Fatalf("Parse() error: %v", err)
	}
	want := map[string]ImageBuild{"api": {Image: "api"}, "worker": {Image: "worker", Registry: "localhost:5000"}}
	if diff := cmp.Diff(want, s.Builds); diff != "" {
		t.Errorf("Parse().Builds mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"web": "docker.io/library/nginx@" + digest}, s.Images); diff != "" {
		t.Errorf("Parse().Images mismatch (-want +got):\n%s", diff)
	}
}

func TestParseImagesFromABuildRefusesBadTables(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	line := `web = "docker.io/library/nginx@` + digest + `"`
	tests := []struct {
		name, entry, want string
	}{
		{"an unknown key in the table names it", `api = { build = "api", tag = "x" }`, `release.toml:12: images.api.tag: unknown key (known keys: build, registry)`},
		{"a table without build is refused", `api = { registry = "r:5000" }`, `release.toml:12: images.api: a table here needs build = "NAME"`},
		{"a build that is not a string is refused", `api = { build = 3 }`, `release.toml:12: images.api.build: wrong type: want string, have integer`},
		{"an empty build is refused", `api = { build = "" }`, `release.toml:12: images.api.build: must not be empty`},
		{"an image that is neither a string nor a table is refused", `api = 7`, `release.toml:12: images.api: wrong type: want string or table, have integer`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := strings.Replace(good, line, line+"\n"+tt.entry, 1)
			_, err := Parse("release.toml", []byte(src))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Parse() error = %v, want it to contain %s", err, tt.want)
			}
			if !errors.As(err, new(*Error)) {
				t.Errorf("Parse() error %T is not a *spec.Error", err)
			}
		})
	}
}
