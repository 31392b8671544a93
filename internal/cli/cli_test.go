package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// result is what one in-process run of the command tree printed and returned.
type result struct {
	stdout, stderr string
	code           int
}

// run executes a fresh command tree with args.
//
// Tests that call it may run in parallel (t.Parallel), as long as each
// keeps to its own namespace and directories: the command tree keeps no
// package state of its own. What is process-wide keeps a test serial:
// t.Setenv, a signal sent to the test process, the goroutine count, and
// --verbose, which sends client-go's klog (one per process) to that run's
// stderr while every other run sends it to io.Discard, so a verbose run
// alongside another would lose its request log or collect the other's.
func run(t *testing.T, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	code := Run(context.Background(), args, &out, &errb)
	return result{stdout: out.String(), stderr: errb.String(), code: code}
}

// repoRoot is the Piceli checkout the tests run in.
func repoRoot(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(filepath.Dir(file)))
}

// writeFiles creates files (relative path → content) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// piceliModule writes a go.mod and go.sum in dir that reach this checkout:
// Piceli's own requirements (so nothing needs resolving) plus a replace.
func piceliModule(t *testing.T, dir, module string) {
	t.Helper()
	root := repoRoot(t)
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	body := strings.Replace(string(gomod), "module github.com/pynenc/piceli\n", "module "+module+"\n", 1)
	body += "\nrequire github.com/pynenc/piceli v0.0.0\n\nreplace github.com/pynenc/piceli => " + root + "\n"
	writeFiles(t, dir, map[string]string{"go.mod": body, "go.sum": string(sum)})
}
