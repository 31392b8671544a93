package compose

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
)

// store builds the binary at bin. It appears atomically: it is built
// under a temporary name beside bin, synced and renamed.
func store(ctx context.Context, b *goBuild, bin string) error {
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		return fmt.Errorf("create composition cache: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(bin), ".build-*")
	if err != nil {
		return fmt.Errorf("create composition cache: %w", err)
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	if err := b.build(ctx, tmp.Name()); err != nil {
		return err
	}
	if err := syncFile(tmp.Name()); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), bin)
}

// cached reports whether a built binary exists at bin.
func cached(bin string) bool {
	info, err := os.Stat(bin)
	return err == nil && info.Mode().IsRegular()
}

// goBuild is one build of a generated main.
type goBuild struct {
	gotool string
	dir    string // the user's package directory
	gen    *generated
}

// build compiles the generated main into out. The overlay and generated
// source live in a temporary directory outside the user's tree.
func (b *goBuild) build(ctx context.Context, out string) error {
	tmp, err := os.MkdirTemp("", "piceli-compose-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	overlay, err := writeOverlay(tmp, b.gen)
	if err != nil {
		return fmt.Errorf("write build overlay: %w", err)
	}
	_, err = runGo(ctx, b.gotool, b.dir, "build", "-o", out, "-overlay", overlay, b.gen.target)
	return err
}

// syncFile flushes a file to disk.
func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}
