package importer

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pynenc/piceli/internal/atomicfile"
	"github.com/pynenc/piceli/internal/localpath"
)

// owned reports whether an import owns the entry name at the top of an
// output directory: --force replaces these and keeps everything else
// (.git, the release's state directory, notes).
func owned(name string, dir bool) bool {
	if dir {
		return name == "manifests"
	}
	return strings.HasSuffix(name, ".go") || slices.Contains([]string{"go.mod", "go.sum", "release.toml", ".gitignore"}, name)
}

// checkOut refuses an output directory that exists and holds anything,
// unless force.
func checkOut(dir string, force bool) error {
	if dir == "" {
		return refusef("import: no output directory")
	}
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return refusef("import: output directory %s: %v", dir, bare(err))
	case len(entries) > 0 && !force:
		return refusef("import: output directory %s exists and is not empty: %w", dir, ErrOutputExists)
	}
	return nil
}

// install writes the module's files from staging into dir, first removing
// what an earlier import wrote there. It returns the files written,
// relative to dir, sorted.
func install(staging, dir string) ([]string, error) {
	if err := removeOwned(dir); err != nil {
		return nil, err
	}
	var written []string
	err := filepath.WalkDir(staging, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(staging, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		dst, err := localpath.Join(dir, filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		written = append(written, filepath.ToSlash(rel))
		return atomicfile.Write(dst, data, 0o644)
	})
	if err != nil {
		return nil, fmt.Errorf("write the module to %s: %w", dir, err)
	}
	slices.Sort(written)
	return written, nil
}

// removeOwned removes the entries of dir an import owns.
func removeOwned(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		if owned(e.Name(), e.IsDir()) {
			if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

// stage writes files, keyed by slash-separated paths, into a fresh
// directory; a path that would leave it (localpath) is an error.
func stage(dir string, files map[string][]byte) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	for p, data := range files {
		if err := localpath.WriteFile(dir, p, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
