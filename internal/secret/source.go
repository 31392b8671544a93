package secret

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/pynenc/piceli/internal/inputfile"
	"github.com/pynenc/piceli/internal/wire"
)

// maxFileSize caps a "file" source.
const maxFileSize = 1 << 20

// defaultLength is a generated value's length when the declaration has none.
const defaultLength = 32

// fingerprint describes where k's value comes from, never the value, with
// defaults filled in so an explicit default is no change.
func fingerprint(k wire.SecretKeyInfo) string {
	switch k.Source {
	case wire.SourceGenerated:
		length, alphabet := generatedShape(k)
		return fmt.Sprintf("generated length=%d alphabet=%q", length, alphabet)
	case wire.SourceGeneratedTLS:
		return fmt.Sprintf("generated-tls ref=%q hosts=%q", k.Ref, strings.Join(k.Hosts, ","))
	}
	return fmt.Sprintf("%s ref=%q", k.Source, k.Ref)
}

// generatedShape returns k's length and alphabet, defaults filled in.
func generatedShape(k wire.SecretKeyInfo) (int, string) {
	length, alphabet := k.Length, k.Alphabet
	if length == 0 {
		length = defaultLength
	}
	if alphabet == "" {
		alphabet = wire.DefaultAlphabet
	}
	return length, alphabet
}

// readFile reads a "file" source, relative to BaseDir, at most 1 MiB.
func (r *Resolver) readFile(secret string, k wire.SecretKeyInfo) ([]byte, error) {
	p := k.Ref
	if !filepath.IsAbs(p) {
		p = filepath.Join(r.BaseDir, p)
	}
	val, err := readCapped(p)
	if err != nil {
		return nil, sourceErr(secret, k.Key, fmt.Errorf("file %s: %w", k.Ref, err))
	}
	return val, nil
}

// readCapped reads path, refusing more than maxFileSize bytes. Its errors
// drop the path, which the caller names as declared.
func readCapped(path string) ([]byte, error) {
	f, err := inputfile.Open(path, inputfile.Options{})
	if err != nil {
		return nil, bare(err)
	}
	defer f.Close()
	val, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return nil, bare(err)
	}
	if len(val) > maxFileSize {
		return nil, errors.New("larger than 1 MiB")
	}
	return val, nil
}

// bare returns a path error's cause ("no such file or directory").
func bare(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// readCluster imports a "cluster" source, Ref "secret/key".
func (r *Resolver) readCluster(ctx context.Context, secret string, k wire.SecretKeyInfo) ([]byte, error) {
	name, key, ok := strings.Cut(k.Ref, "/")
	if !ok || name == "" || key == "" {
		return nil, sourceErr(secret, k.Key, fmt.Errorf("cluster secret reference %q is not secret/key", k.Ref))
	}
	if r.ReadCluster == nil {
		return nil, &keyError{secret: secret, key: k.Key, err: fmt.Errorf("cluster secret %s: %w", k.Ref, ErrNoCluster)}
	}
	val, err := r.ReadCluster(ctx, name, key)
	if err != nil {
		return nil, &keyError{secret: secret, key: k.Key, err: fmt.Errorf("cluster secret %s: %w", k.Ref, err), source: errors.Is(err, fs.ErrNotExist)}
	}
	return val, nil
}
