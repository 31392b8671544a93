package compose

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"runtime"

	"github.com/pynenc/piceli/internal/inputfile"
)

// keyVersion changes whenever the way binaries are built changes.
const keyVersion = "piceli-compose/v1"

// cacheRoot returns where compiled compositions are kept.
func cacheRoot(opts Options) (string, error) {
	if opts.CacheDir != "" {
		return filepath.Join(opts.CacheDir, "compositions"), nil
	}
	if dir := os.Getenv("PICELI_CACHE_DIR"); dir != "" {
		return filepath.Join(dir, "compositions"), nil
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("find a cache directory (set PICELI_CACHE_DIR): %w", err)
	}
	return filepath.Join(dir, "piceli", "compositions"), nil
}

// binaryPath is where the binary for key lives under root.
func binaryPath(root, key string) string {
	name := "composition"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	return filepath.Join(root, key, name)
}

// cacheKey hashes what a build depends on: the toolchain settings, the
// generated main and, per package, either its module version (module cache
// contents are immutable and checked against go.sum) or, for packages of
// the main module and of local replacements, its directory and files.
func cacheKey(env []byte, g *generated, pkgs []listPackage) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s\n%s\n%d\n%s\n", keyVersion, env, g.path, len(g.source), g.source)
	mods := map[string]bool{}
	for i := range pkgs {
		if err := hashPackage(h, &pkgs[i], mods); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// hashPackage adds one package to the key.
func hashPackage(h hash.Hash, p *listPackage, mods map[string]bool) error {
	if p.Standard {
		return nil
	}
	mod := effectiveModule(p.Module)
	if mod != nil && mod.Version != "" {
		fmt.Fprintf(h, "mod %s@%s\n", mod.Path, mod.Version)
		return nil
	}
	fmt.Fprintf(h, "pkg %s %s\n", p.ImportPath, p.Dir)
	if mod != nil && !mods[mod.GoMod] {
		mods[mod.GoMod] = true
		if err := hashModuleFiles(h, mod); err != nil {
			return err
		}
	}
	for _, files := range [][]string{p.GoFiles, p.CgoFiles, p.CFiles, p.CXXFiles, p.HFiles, p.SFiles, p.SysoFiles, p.EmbedFiles} {
		for _, f := range files {
			if err := hashFile(h, filepath.Join(p.Dir, f)); err != nil {
				return err
			}
		}
	}
	return nil
}

// effectiveModule follows a replacement.
func effectiveModule(m *listModule) *listModule {
	if m != nil && m.Replace != nil {
		return m.Replace
	}
	return m
}

// hashModuleFiles adds a local module's go.mod and go.sum.
func hashModuleFiles(h hash.Hash, m *listModule) error {
	if m.GoMod == "" {
		return nil
	}
	if err := hashFile(h, m.GoMod); err != nil {
		return err
	}
	err := hashFile(h, filepath.Join(filepath.Dir(m.GoMod), "go.sum"))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}

// hashFile adds a file's name, size and contents.
func hashFile(h hash.Hash, path string) error {
	f, err := inputfile.Open(path, inputfile.Options{})
	if err != nil {
		return fmt.Errorf("hash build input: %w", err)
	}
	defer f.Close()
	fmt.Fprintf(h, "file %s\n", path)
	fh := sha256.New()
	if _, err := io.Copy(fh, f); err != nil {
		return fmt.Errorf("hash build input %s: %w", path, err)
	}
	h.Write(fh.Sum(nil))
	return nil
}
