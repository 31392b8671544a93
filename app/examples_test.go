package app_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/pynenc/piceli/app"
	"github.com/pynenc/piceli/examples/hello"
	"github.com/pynenc/piceli/examples/mixed"
	"github.com/pynenc/piceli/examples/shop"
)

// updating reports whether -update (declared by the package's internal
// tests, which share this test binary) asks to rewrite golden files.
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// releaseFile is the part of an example's release.toml a composition sees.
type releaseFile struct {
	Target struct {
		Namespace string `toml:"namespace"`
	} `toml:"target"`
	Release struct {
		Name string `toml:"name"`
	} `toml:"release"`
	Images map[string]any    `toml:"images"`
	Values map[string]string `toml:"values"`
}

// images gives each [images] entry the reference a composition sees: the
// string as written, or for { build = "NAME" } (resolved by the release
// from a build's layout) a stand-in digest reference, so that the golden
// file does not change with every build.
func (rf releaseFile) images() map[string]string {
	out := map[string]string{}
	for k, v := range rf.Images {
		ref, ok := v.(string)
		if !ok {
			ref = "piceli.local/build/" + k + "@sha256:" + strings.Repeat("0", 64)
		}
		out[k] = ref
	}
	return out
}

func TestExamplesBuild(t *testing.T) {
	tests := []struct {
		name  string
		dir   string
		build app.BuildFunc
	}{
		{name: "the hello quick start builds from its release.toml", dir: "hello", build: hello.Build},
		{name: "the multi-tier shop builds from its release.toml", dir: "shop", build: shop.Build},
		{name: "the mixed typed, k8s.io/api and file example builds from its release.toml", dir: "mixed", build: mixed.Build},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			golden, err := filepath.Abs(filepath.Join("testdata", "examples", tt.dir+".yaml"))
			if err != nil {
				t.Fatal(err)
			}
			t.Chdir(filepath.Join("..", "examples", tt.dir))
			c, err := tt.build(exampleContext(t))
			if err != nil {
				t.Fatalf("%s.Build() error = %v", tt.dir, err)
			}
			checkExampleGolden(t, golden, c)
		})
	}
}

// exampleContext reads ./release.toml into the Context Piceli would pass.
func exampleContext(t *testing.T) *app.Context {
	t.Helper()
	var rf releaseFile
	if _, err := toml.DecodeFile("release.toml", &rf); err != nil {
		t.Fatalf("decode release.toml: %v", err)
	}
	return app.NewContext(app.ContextDocument{
		Schema:    app.ContextSchema,
		Release:   rf.Release.Name,
		Namespace: rf.Target.Namespace,
		Images:    rf.images(),
		Values:    rf.Values,
	})
}

func checkExampleGolden(t *testing.T, path string, c *app.Composition) {
	t.Helper()
	got, err := yaml.Marshal(c.Document())
	if err != nil {
		t.Fatal(err)
	}
	if updating() {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file (run go test -update): %v", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("Document differs from %s (-want +got):\n%s", path, diff)
	}
}
