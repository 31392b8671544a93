package guide_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/pynenc/piceli/internal/guide"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// The controller guide runs, block by block, in a copy of this checkout
// against a sandbox with a real node: the controller's own image installed
// by hash, a Release following an OCI artifact CI publishes, each revision
// applied only after its plan's hash is approved, its check passing
// against the running container.
func TestControllerGuide(t *testing.T) {
	rn := sandboxtest.StartRealNode(t)
	root := repoRoot(t)
	doc, err := os.ReadFile(filepath.Join(root, "docs", "controller-guide.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := guide.Parse(doc)
	if err != nil {
		t.Fatalf("docs/controller-guide.md: %v", err)
	}
	copyDir := cloneWorkingTree(t, root)
	build := exec.Command("go", "build", "-o", filepath.Join(copyDir, "bin", "piceli"), "./cmd/piceli")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build piceli: %v\n%s", err, out)
	}
	if _, err := exec.LookPath("jq"); err != nil {
		sandboxtest.Unavailable(t, "no jq (Debian package jq), which the guide uses")
	}
	env := append(os.Environ(),
		"SANDBOX="+rn.Info.Name, "PICELI_SANDBOX_DIR="+rn.Dir,
		"PATH="+rn.Box.Binaries().Dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	ctx := sandboxtest.Context(t, 10*time.Minute)
	if _, err := guide.Run(ctx, "docs/controller-guide.md", blocks, guide.RunOptions{Dir: copyDir, Env: env, Log: testLog{t}}); err != nil {
		t.Fatal(err)
	}
}
