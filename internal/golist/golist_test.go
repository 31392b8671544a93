package golist

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

type pkg struct {
	ImportPath string
	Name       string
	Standard   bool
}

// module writes a module example.test/m whose package in the returned
// directory holds main.go with the given body.
func module(t *testing.T, body string) string {
	t.Helper()
	dir := t.TempDir()
	write(t, filepath.Join(dir, "go.mod"), "module example.test/m\n\ngo 1.26\n")
	write(t, filepath.Join(dir, "main.go"), body)
	return dir
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o755); err != nil {
		t.Fatal(err)
	}
}

func TestDepsListsThePackageLastAfterItsDependencies(t *testing.T) {
	dir := module(t, "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println() }\n")
	pkgs, err := Deps[pkg](t.Context(), dir, []string{"ImportPath", "Name", "Standard"}, Options{})
	if err != nil {
		t.Fatalf("Deps(%s) error = %v", dir, err)
	}
	last := pkgs[len(pkgs)-1]
	if last != (pkg{ImportPath: "example.test/m", Name: "main"}) {
		t.Errorf("Deps(%s) ends with %+v, want the main package example.test/m", dir, last)
	}
	if !slices.Contains(pkgs, pkg{ImportPath: "fmt", Name: "fmt", Standard: true}) {
		t.Errorf("Deps(%s) = %+v, want fmt among them", dir, pkgs)
	}
}

func TestDepsErrors(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T) (dir string, opts Options)
		want  []string // in the error, besides the directory
		check func(error) bool
	}{
		{
			name: "an import that does not exist is an *Error with what go printed",
			setup: func(t *testing.T) (string, Options) {
				return module(t, "package main\n\nimport _ \"example.test/m/missing\"\n\nfunc main() {}\n"), Options{}
			},
			want:  []string{"example.test/m/missing"},
			check: func(err error) bool { _, ok := errors.AsType[*Error](err); return ok },
		},
		{
			name: "output past MaxOutput is refused, not kept",
			setup: func(t *testing.T) (string, Options) {
				fake := filepath.Join(t.TempDir(), "go")
				write(t, fake, "#!/bin/sh\nhead -c 67108865 /dev/zero\n")
				return t.TempDir(), Options{Go: fake}
			},
			want:  []string{"output passed 64 MiB"},
			check: func(err error) bool { return true },
		},
		{
			name: "output that is not go list's JSON",
			setup: func(t *testing.T) (string, Options) {
				fake := filepath.Join(t.TempDir(), "go")
				write(t, fake, "#!/bin/sh\necho '{\"ImportPath\": 1}'\n")
				return t.TempDir(), Options{Go: fake}
			},
			want:  []string{"decode go list -deps output"},
			check: func(err error) bool { return true },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, opts := tt.setup(t)
			_, err := Deps[pkg](t.Context(), dir, []string{"ImportPath", "Name", "Standard"}, opts)
			if err == nil || !tt.check(err) || !strings.Contains(err.Error(), "in "+dir) {
				t.Fatalf("Deps(%s) error = %v, want one naming the directory", dir, err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Deps(%s) error = %v, want it to say %q", dir, err, w)
				}
			}
		})
	}
}

// A cancelled context ends go list: the error wraps the context's.
func TestDepsStopsWithItsContext(t *testing.T) {
	fake := filepath.Join(t.TempDir(), "go")
	write(t, fake, "#!/bin/sh\nexec sleep 600\n")
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := Deps[pkg](ctx, t.TempDir(), []string{"ImportPath"}, Options{Go: fake})
		done <- err
	}()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Deps() after cancel = %v, want context.Canceled", err)
	}
}

func TestBoundedKeepsTheFirstBytes(t *testing.T) {
	b := &bounded{max: 4}
	for _, s := range []string{"ab", "cde", "fg"} {
		if n, err := b.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write(%q) = %d, %v; want every byte taken", s, n, err)
		}
	}
	if b.String() != "abcd" || !b.over {
		t.Errorf("after writing 7 bytes into 4: %q, over %v; want \"abcd\", over", b.String(), b.over)
	}
}
