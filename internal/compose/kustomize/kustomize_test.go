package kustomize

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pynenc/piceli/refusal"
)

func names(t *testing.T, src Source) []string {
	t.Helper()
	objs, err := Render(src)
	if err != nil {
		t.Fatalf("Render(%+v) error = %v", src, err)
	}
	var out []string
	for _, o := range objs {
		out = append(out, o.Object.GetKind()+"/"+o.Object.GetName()+" "+o.Object.GetLabels()["tier"])
	}
	return out
}

func TestRenderBuildsAnOverlayWithinItsRoot(t *testing.T) {
	got := names(t, Source{Path: "testdata/app/overlay", Root: "testdata/app"})
	want := []string{"ConfigMap/prod-extra-h29d89cmmt web", "ConfigMap/prod-settings web"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Render(overlay) (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(got, names(t, Source{Path: "testdata/app/overlay", Root: "testdata/app"})); diff != "" {
		t.Errorf("a second Render differs:\n%s", diff)
	}
}

func TestRenderRefuses(t *testing.T) {
	tests := []struct {
		name     string
		resource string
		root     string
		want     string
	}{
		{"a remote base by URL", "https://github.com/kubernetes-sigs/kustomize//examples/helloWorld?ref=v5.0.0", "", `names the remote "https://github.com`},
		{"a remote base by Git host path", "github.com/example/repo/deploy", "", "names the remote"},
		{"a remote base over ssh", "git@github.com:example/repo.git", "", "names the remote"},
		{"a base out of the root", "../base", "overlay", "build kustomization"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.CopyFS(dir, os.DirFS("testdata/app")); err != nil {
				t.Fatal(err)
			}
			k := "resources:\n  - " + tt.resource + "\n"
			if err := os.WriteFile(filepath.Join(dir, "overlay", "kustomization.yaml"), []byte(k), 0o644); err != nil {
				t.Fatal(err)
			}
			root := dir
			if tt.root != "" {
				root = filepath.Join(dir, tt.root)
			}
			_, err := Render(Source{Path: filepath.Join(dir, "overlay"), Root: root})
			if err == nil || !refusal.Is(err) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Render() error = %v, want a refusal containing %q", err, tt.want)
			}
		})
	}
}

// A kustomization that names a file outside its root through a symlink
// or an absolute path reads nothing from outside.
func TestSecurityKustomizationStaysInItsRoot(t *testing.T) {
	const canary = "canary-outside-the-kustomization-91c3"
	outside := filepath.Join(t.TempDir(), "outside.yaml")
	if err := os.WriteFile(outside, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: "+canary+"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, setup := range map[string]func(dir string) error{
		"an absolute path": func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte("resources:\n  - "+outside+"\n"), 0o644)
		},
		"a symlink": func(dir string) error {
			if err := os.Symlink(outside, filepath.Join(dir, "link.yaml")); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte("resources:\n  - link.yaml\n"), 0o644)
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if err := setup(dir); err != nil {
				t.Fatal(err)
			}
			objs, err := Render(Source{Path: dir})
			if err == nil || !refusal.Is(err) {
				t.Errorf("Render() = %d objects, error %v; want a refusal", len(objs), err)
			}
			if err != nil && strings.Contains(err.Error(), canary) {
				t.Errorf("Render() error quotes the outside file: %v", err)
			}
		})
	}
}
