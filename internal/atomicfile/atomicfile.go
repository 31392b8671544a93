package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
)

// Write replaces path with data: a temporary file in the same directory is
// written, synced and renamed over path, then the directory is synced so
// the rename survives a crash. The directory must exist.
func Write(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if err := fill(tmp, data, perm); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return SyncDir(dir)
}

// WriteNew creates path with data unless path exists, in which case it
// returns an error matching fs.ErrExist and leaves path as it was. As with
// Write, a crash leaves either no file or the whole of it: a temporary file
// is written and synced, then linked to path (which fails when path
// exists, so of two racing writers exactly one creates it), and the
// directory is synced. The directory must exist.
func WriteNew(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if err := fill(tmp, data, perm); err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	return SyncDir(dir)
}

func fill(f *os.File, data []byte, perm os.FileMode) error {
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(perm); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// SyncDir fsyncs a directory so entries created or renamed in it are
// durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}

// MkdirPrivate creates dir and its parents, owner-only (0700), and makes an
// existing dir owner-only too.
func MkdirPrivate(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return os.Chmod(dir, 0o700)
}
