package cli

import (
	"archive/tar"
	"bytes"
	"debug/elf"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"

	"github.com/pynenc/piceli/artifact"
)

// The controller's image builds from the repository's own module with
// `piceli artifacts pin` and `build` on cmd/piceli-controller/build.toml:
// one static binary as its entrypoint, run as a non-root user, beside the
// CA bundle it needs for registries and Git servers over TLS.
func TestControllerImageBuildsFromTheRepository(t *testing.T) {
	t.Parallel()
	doc, stdout := controllerBuild(t)
	if doc.Build == nil || len(doc.Build.Images) != 1 || doc.Build.Images[0].Name != "controller" {
		t.Fatalf("build document:\n%s", stdout)
	}
	built := doc.Build.Images[0]
	t.Logf("controller image %s: %d bytes, built in %s", built.Reference, built.Size, doc.Build.Duration)
	path, err := layout.FromPath(doc.Build.Layout)
	if err != nil {
		t.Fatal(err)
	}
	h, err := v1.NewHash(built.Digest)
	if err != nil {
		t.Fatal(err)
	}
	img, err := path.Image(h)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Config.User != "65532:65532" || !slices.Equal(cfg.Config.Entrypoint, []string{"/app/controller"}) {
		t.Errorf("image runs %v as %q, want /app/controller as 65532:65532", cfg.Config.Entrypoint, cfg.Config.User)
	}
	files := imageFiles(t, img)
	if len(files["etc/ssl/certs/ca-certificates.crt"]) == 0 {
		t.Error("the image has no CA bundle")
	}
	bin, ok := files["app/controller"]
	if !ok {
		t.Fatalf("the image has no /app/controller: %v", slices.Sorted(func(yield func(string) bool) {
			for k := range files {
				if !yield(k) {
					return
				}
			}
		}))
	}
	f, err := elf.NewFile(bytes.NewReader(bin))
	if err != nil {
		t.Fatalf("/app/controller is not an ELF binary: %v", err)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
			t.Errorf("/app/controller is dynamically linked (%v): it needs a loader the image lacks", p.Type)
		}
	}
}

// imageFiles reads every regular file of img's layers, by path without
// the leading slash.
func imageFiles(t *testing.T, img v1.Image) map[string][]byte {
	t.Helper()
	layers, err := img.Layers()
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, l := range layers {
		rc, err := l.Uncompressed()
		if err != nil {
			t.Fatal(err)
		}
		tr := tar.NewReader(rc)
		for {
			h, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if h.Typeflag == tar.TypeReg {
				data, err := io.ReadAll(io.LimitReader(tr, 512<<20))
				if err != nil {
					t.Fatal(err)
				}
				files[filepath.Clean(h.Name)] = data
			}
		}
		rc.Close()
	}
	return files
}

// controllerBuilt is the build of cmd/piceli-controller/build.toml that
// controllerBuild makes once per test binary.
var controllerBuilt struct {
	once   sync.Once
	doc    artifact.BuildDoc
	stdout string
	err    error
}

// controllerBuild runs `artifacts pin` and `artifacts build -o json` on
// cmd/piceli-controller/build.toml, in the checkout, once for the tests
// that need the controller's image (two builds at once would write the
// same lock and layout), and returns the build document and what build
// printed.
func controllerBuild(t *testing.T) (artifact.BuildDoc, string) {
	t.Helper()
	controllerBuilt.once.Do(func() {
		spec := filepath.Join(repoRoot(t), "cmd", "piceli-controller", "build.toml")
		for _, args := range [][]string{{"artifacts", "pin", "--spec", spec}, {"artifacts", "build", "--spec", spec, "-o", "json"}} {
			res := run(t, args...)
			if res.code != ExitOK {
				controllerBuilt.err = fmt.Errorf("piceli %s: exit %d\n%s", strings.Join(args, " "), res.code, res.stderr)
				return
			}
			controllerBuilt.stdout = res.stdout
		}
		if err := json.Unmarshal([]byte(controllerBuilt.stdout), &controllerBuilt.doc); err != nil {
			controllerBuilt.err = fmt.Errorf("artifacts build -o json: %v\n%s", err, controllerBuilt.stdout)
		}
	})
	if controllerBuilt.err != nil {
		t.Fatal(controllerBuilt.err)
	}
	return controllerBuilt.doc, controllerBuilt.stdout
}
