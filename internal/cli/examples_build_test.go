package cli

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

var exampleBuilds sync.Map // example name -> *sync.Once

// buildExample builds the images of an example that takes them from its
// build.toml (with the lock it ships), once per test binary, so that its
// release.toml resolves { build = "NAME" } images. Examples without a
// build.toml need nothing.
func buildExample(t *testing.T, example string) {
	t.Helper()
	spec := filepath.Join(repoRoot(t), "examples", example, "build.toml")
	if _, err := os.Stat(spec); err != nil {
		return
	}
	once, _ := exampleBuilds.LoadOrStore(example, new(sync.Once))
	var res result
	ran := false
	once.(*sync.Once).Do(func() { res, ran = run(t, "artifacts", "build", "--spec", spec), true })
	if ran && res.code != ExitOK {
		t.Fatalf("artifacts build --spec %s: exit %d\n%s", spec, res.code, res.stderr)
	}
}
