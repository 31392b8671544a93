package rundir

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// MaxSocketPath is the longest unix socket path Linux accepts: sun_path
// holds 108 bytes with the terminating NUL.
const MaxSocketPath = 107

// ErrUnusable reports a runtime directory (or its base) that cannot be used:
// another user's, a symlink, writable by others, or held for another key.
var ErrUnusable = errors.New("runtime directory unusable")

// keyFile, inside a runtime directory, records the key it was made for.
const keyFile = "key"

// Dir is the runtime directory of one key (for a sandbox, its cluster
// directory): Base/Name(Key). Build it with For or ForUser.
type Dir struct {
	Path string // the directory
	Key  string // what it was made for, recorded inside by Create
}

// For returns key's runtime directory for the effective user. It touches
// nothing on disk.
func For(key string) Dir { return ForUser(os.Geteuid(), key) }

// ForUser returns key's runtime directory for the user uid, as For does.
func ForUser(uid int, key string) Dir {
	return Dir{Path: filepath.Join(Base(uid), Name(key)), Key: key}
}

// Base is the folder holding the runtime directories of the user uid:
// /run/piceli for root (/run is root's, and emptied at boot), else
// /tmp/piceli-<uid> (not $TMPDIR, whose length nobody bounds).
func Base(uid int) string {
	if uid == 0 {
		return "/run/piceli"
	}
	return "/tmp/piceli-" + strconv.Itoa(uid)
}

// Name is the name of key's runtime directory: the first 8 hex digits of
// the SHA-256 of key, so different keys get different directories and the
// same key the same one.
func Name(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:4])
}

// CheckSocket fails when path is too long to be a unix socket's address.
func CheckSocket(path string) error {
	if len(path) > MaxSocketPath {
		return fmt.Errorf("socket path %s is %d bytes, more than Linux's %d", path, len(path), MaxSocketPath)
	}
	return nil
}

// Check verifies, without creating anything, that d and its base can be
// used: each that exists must be a directory, not a symlink, owned by the
// effective user and writable by nobody else, and d must not record another
// key. The error wraps ErrUnusable and names the folder.
func (d Dir) Check() error {
	for _, dir := range []string{filepath.Dir(d.Path), d.Path} {
		if err := checkOwn(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return d.checkKey()
}

// Create makes d and its base (mode 0700) unless they exist, checks them as
// Check does, and records d's key inside. It is idempotent.
func (d Dir) Create() error {
	for _, dir := range []string{filepath.Dir(d.Path), d.Path} {
		if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("create runtime directory %s: %w", dir, err)
		}
		if err := checkOwn(dir); err != nil {
			return err
		}
	}
	if err := d.checkKey(); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(d.Path, keyFile), []byte(d.Key+"\n"), 0o600); err != nil {
		return fmt.Errorf("create runtime directory %s: %w", d.Path, err)
	}
	return nil
}

// Remove removes d with everything in it, then its base if that is left
// empty. It removes nothing when d records another key, and is done when d
// does not exist. The caller makes sure nothing is mounted below d:
// removing would reach through a mount.
func (d Dir) Remove() error {
	if _, err := os.Lstat(d.Path); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err := d.checkKey(); err != nil {
		return err
	}
	if err := checkOwn(d.Path); err != nil {
		return err
	}
	if err := os.RemoveAll(d.Path); err != nil {
		return fmt.Errorf("remove runtime directory %s: %w", d.Path, err)
	}
	// Another user of the base may have just made its own directory there:
	// a base left non-empty stays.
	if err := os.Remove(filepath.Dir(d.Path)); err != nil && !errors.Is(err, syscall.ENOTEMPTY) && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove runtime directory base %s: %w", filepath.Dir(d.Path), err)
	}
	return nil
}

// checkKey fails when d records a key other than its own (two keys whose
// names collide, or a directory someone else put there).
func (d Dir) checkKey() error {
	raw, err := os.ReadFile(filepath.Join(d.Path, keyFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrUnusable, d.Path, err)
	}
	if got := strings.TrimSuffix(string(raw), "\n"); got != d.Key {
		return fmt.Errorf("%w: %s is held for %s, not %s", ErrUnusable, d.Path, got, d.Key)
	}
	return nil
}

// checkOwn fails unless dir is a directory (not a symlink) owned by the
// effective user that nobody else may write to. A missing dir wraps
// fs.ErrNotExist.
func checkOwn(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrUnusable, dir, err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%w: %s is a symlink", ErrUnusable, dir)
	case !fi.IsDir():
		return fmt.Errorf("%w: %s is not a directory", ErrUnusable, dir)
	case !ok || int(st.Uid) != os.Geteuid():
		return fmt.Errorf("%w: %s belongs to uid %d, not to this user (uid %d)", ErrUnusable, dir, ownerOf(st), os.Geteuid())
	case fi.Mode().Perm()&0o077 != 0:
		return fmt.Errorf("%w: %s has mode %#o, want 0700 (only its owner may use it)", ErrUnusable, dir, fi.Mode().Perm())
	}
	return nil
}

func ownerOf(st *syscall.Stat_t) int {
	if st == nil {
		return -1
	}
	return int(st.Uid)
}
