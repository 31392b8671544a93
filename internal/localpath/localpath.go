package localpath

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// MaxKey bounds the length of a Key in bytes, leaving room in a file name
// (255 bytes on common file systems) for a prefix and an extension.
const MaxKey = 200

// MaxElement bounds one element of a path Join accepts, in bytes: the
// file name limit of common file systems.
const MaxElement = 255

// hashLen is how many hex digits of a name's SHA-256 a shortened Key ends
// with, so two long names that share their first MaxKey bytes still get
// two keys.
const hashLen = 12

// ErrNotLocal marks a path refused because it would leave its directory or
// is no usable file name: absolute, empty, with a ".." element, a NUL or
// control character, a backslash, or an element longer than MaxElement.
var ErrNotLocal = errors.New("not a file name inside its directory")

// Key returns a file name part made from name: lower-case ASCII letters,
// digits, '.' and '-' are kept, upper-case letters are lowered, and every
// other character becomes '-'. A leading '.' becomes '-' (no hidden file,
// no "." or ".."), an empty name gives "-", and a key longer than MaxKey
// is cut and ends with '-' and the first 12 hex digits of name's SHA-256.
// A Key never holds a path separator. Different names can share a key
// ("a_b" and "a:b"); callers that need unique files number or prefix them.
func Key(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	k := b.String()
	if k == "" || k[0] == '.' {
		k = "-" + strings.TrimPrefix(k, ".")
	}
	if len(k) > MaxKey {
		sum := sha256.Sum256([]byte(name))
		k = k[:MaxKey-hashLen-1] + "-" + hex.EncodeToString(sum[:])[:hashLen]
	}
	return k
}

// Check returns nil when rel, a slash-separated relative path, names a
// file inside its directory: not empty, not absolute, already clean (no
// "." or ".." element, no doubled or trailing slash), without backslashes,
// NULs or control characters, each element at most MaxElement bytes and
// valid UTF-8. Otherwise the error matches ErrNotLocal and quotes rel.
func Check(rel string) error {
	if why := problem(rel); why != "" {
		return fmt.Errorf("file name %q: %s: %w", rel, why, ErrNotLocal)
	}
	return nil
}

// CheckName is Check for a single file name: rel may not hold a '/'.
func CheckName(name string) error {
	if strings.Contains(name, "/") {
		return fmt.Errorf("file name %q: holds a '/': %w", name, ErrNotLocal)
	}
	return Check(name)
}

// problem says what makes rel unusable, or "".
func problem(rel string) string {
	switch {
	case rel == "":
		return "empty"
	case !utf8.ValidString(rel):
		return "not UTF-8"
	case strings.ContainsFunc(rel, func(r rune) bool { return r < 0x20 || r == 0x7f || r == '\\' }):
		return "holds a control character or a backslash"
	case path.IsAbs(rel) || path.Clean(rel) != rel || !filepath.IsLocal(filepath.FromSlash(rel)):
		return "leaves its directory"
	}
	for _, e := range strings.Split(rel, "/") {
		if len(e) > MaxElement {
			return fmt.Sprintf("an element is longer than %d bytes", MaxElement)
		}
	}
	return ""
}

// Join returns the path of rel inside dir after Check. It does not look
// at the file system: a symlink inside dir may still lead out of it, which
// WriteFile and Remove refuse.
func Join(dir, rel string) (string, error) {
	if err := Check(rel); err != nil {
		return "", err
	}
	return filepath.Join(dir, filepath.FromSlash(rel)), nil
}

// WriteFile writes data to rel inside dir, creating rel's folders. rel
// must pass Check, and the write goes through an os.Root opened on dir, so
// neither ".." nor a symlink anywhere in rel leads out of dir. dir must
// exist.
func WriteFile(dir, rel string, data []byte, perm os.FileMode) error {
	if err := Check(rel); err != nil {
		return err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	if d := path.Dir(rel); d != "." {
		if err := root.MkdirAll(d, 0o755); err != nil {
			return fmt.Errorf("write %s in %s: %w", rel, dir, err)
		}
	}
	if err := root.WriteFile(rel, data, perm); err != nil {
		return fmt.Errorf("write %s in %s: %w", rel, dir, err)
	}
	return nil
}

// Remove removes the file rel inside dir, as WriteFile confines it; a file
// that does not exist is no error.
func Remove(dir, rel string) error {
	if err := Check(rel); err != nil {
		return err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	if err := root.Remove(rel); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove %s in %s: %w", rel, dir, err)
	}
	return nil
}
