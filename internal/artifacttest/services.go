package artifacttest

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Services copies examples/services (the three Go services, their base
// files and build.toml, no lock) into a fresh module example.com/services
// in dir, and returns the copy's build.toml.
func Services(t testing.TB, dir string) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	src := filepath.Join(filepath.Dir(file), "..", "..", "examples", "services")
	for _, rel := range []string{"build.toml", "base/etc/passwd", "base/etc/group", "catalog/main.go", "orders/main.go", "gateway/main.go"} {
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
	writeFile(t, filepath.Join(dir, "go.mod"), "module example.com/services\n\ngo 1.26\n")
	return filepath.Join(dir, "build.toml")
}
