package artifacttest

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Services copies examples/services (the three Go services and the cache
// of its module in cmd/, their base files and build.toml, no lock) into
// dir, and returns the copy's build.toml.
func Services(t testing.TB, dir string) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	src := filepath.Join(filepath.Dir(file), "..", "..", "examples", "services")
	for _, rel := range []string{"build.toml", "base/etc/passwd", "base/etc/group", "cmd/go.mod", "cmd/catalog/main.go", "cmd/orders/main.go", "cmd/gateway/main.go", "cmd/cache/main.go"} {
		data, err := os.ReadFile(filepath.Join(src, rel))
		if err != nil {
			t.Fatal(err)
		}
		to := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "build.toml")
}
