package signer

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"syscall"

	"github.com/pynenc/piceli/internal/atomicfile"
)

// FileEnv names the environment variable that points at this machine's
// signing key file instead of the default (a CI runner sets it to a file
// its secret store provides).
const FileEnv = "PICELI_STATE_KEY_FILE"

// maxKeyFile bounds the key file read: a PEM PKCS#8 ed25519 key is 119
// bytes.
const maxKeyFile = 4 << 10

// pemType is the PEM block type of the key file (PKCS#8).
const pemType = "PRIVATE KEY"

// Key is one machine's private signing key and the file it came from.
type Key struct {
	priv ed25519.PrivateKey
	File string
}

// Public returns the key's public half.
func (k *Key) Public() ed25519.PublicKey { return k.priv.Public().(ed25519.PublicKey) }

// Signer returns the public key with name, as a spec lists it.
func (k *Key) Signer(name string) Signer { return Signer{Key: k.Public(), Name: name} }

// Sign signs message.
func (k *Key) Sign(message []byte) []byte { return ed25519.Sign(k.priv, message) }

// File returns where this machine's signing key is: the file $FileEnv
// names, or DefaultFile.
func File() (string, error) {
	if p := os.Getenv(FileEnv); p != "" {
		return filepath.Abs(p)
	}
	return DefaultFile()
}

// DefaultFile is <os.UserConfigDir()>/piceli/state-signing.key.
func DefaultFile() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("find this machine's state signing key: %w; set %s to a key file", err, FileEnv)
	}
	return filepath.Join(dir, "piceli", "state-signing.key"), nil
}

// ErrNoKey is matched by the error of Load when the key file does not
// exist.
var ErrNoKey = errors.New("no state signing key")

// Load reads the signing key in path. The file must be a regular file
// (not a link, FIFO or device), owned by this user, readable by no one
// else, at most 4 KiB, and hold one PEM PKCS#8 ed25519 private key.
func Load(path string) (*Key, error) {
	data, err := readPrivate(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w at %s: run \"piceli state key\" to create it", ErrNoKey, path)
	}
	if err != nil {
		return nil, fmt.Errorf("read state signing key %s: %w", path, err)
	}
	priv, err := decode(data)
	if err != nil {
		return nil, fmt.Errorf("read state signing key %s: %w", path, err)
	}
	return &Key{priv: priv, File: path}, nil
}

// LoadOrCreate loads the key in path, creating it first when there is
// none: a fresh key, written owner-only (its directory created 0700), and
// created reports that. Of two processes creating it at once, one writes
// it and both load that one.
func LoadOrCreate(path string) (key *Key, created bool, err error) {
	key, err = Load(path)
	if !errors.Is(err, ErrNoKey) {
		return key, false, err
	}
	if err := create(path); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, false, fmt.Errorf("create state signing key %s: %w", path, err)
	}
	key, err = Load(path)
	return key, err == nil, err
}

// create writes a fresh key to path unless a file is there.
func create(path string) error {
	if err := mkdirFor(path); err != nil {
		return err
	}
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return err
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return err
	}
	return atomicfile.WriteNew(path, pem.EncodeToMemory(&pem.Block{Type: pemType, Bytes: der}), 0o600)
}

// mkdirFor creates the key file's directory: owner-only for the default
// location, which is Piceli's own; a directory named through FileEnv is
// created 0700 when missing and otherwise left as it is.
func mkdirFor(path string) error {
	dir := filepath.Dir(path)
	if def, err := DefaultFile(); err == nil && def == path {
		return atomicfile.MkdirPrivate(dir)
	}
	return os.MkdirAll(dir, 0o700)
}

// readPrivate reads path, refusing what a private key file must not be.
func readPrivate(path string) ([]byte, error) {
	info, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if err := private(info); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if info, err = f.Stat(); err != nil {
		return nil, err
	}
	if err := private(info); err != nil { // the file opened may not be the one checked
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, maxKeyFile+1))
	if err == nil && len(data) > maxKeyFile {
		err = fmt.Errorf("larger than %d bytes: not a key file", maxKeyFile)
	}
	return data, err
}

// private refuses a file that is not regular, not this user's, or open to
// group or others.
func private(info fs.FileInfo) error {
	switch {
	case !info.Mode().IsRegular():
		return fmt.Errorf("not a regular file (%s)", info.Mode().Type())
	case info.Mode().Perm()&0o077 != 0:
		return fmt.Errorf("mode %04o lets group or others read or write it: run chmod 600 on it", info.Mode().Perm())
	}
	if st, ok := info.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("owned by uid %d, not by this user (uid %d)", st.Uid, os.Getuid())
	}
	return nil
}

// decode reads one PEM PKCS#8 ed25519 private key.
func decode(data []byte) (ed25519.PrivateKey, error) {
	block, rest := pem.Decode(data)
	if block == nil || block.Type != pemType || len(bytes.TrimSpace(rest)) > 0 {
		return nil, fmt.Errorf("not one PEM %q block", pemType)
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, errors.New("not a PKCS#8 private key")
	}
	priv, ok := k.(ed25519.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("a %T, not an ed25519 key", k)
	}
	return priv, nil
}

// DefaultName is the name `piceli state key` gives this machine's signer
// line: user@host.
func DefaultName() string {
	name := "piceli"
	if u, err := user.Current(); err == nil && u.Username != "" {
		name = u.Username
	}
	if h, err := os.Hostname(); err == nil && h != "" {
		name += "@" + h
	}
	return name
}
