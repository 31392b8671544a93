package compose

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/pynenc/piceli/internal/spec"
)

// loadGo compiles (or reuses) and runs a Go composition.
func loadGo(ctx context.Context, s *spec.Spec, opts Options) (*Result, error) {
	c := s.Release.Composition
	fn, err := findFunc(c.File, c.Func)
	if err != nil {
		return nil, err
	}
	b, key, err := prepare(ctx, fn)
	if err != nil {
		return nil, err
	}
	root, err := cacheRoot(opts)
	if err != nil {
		return nil, err
	}
	bin, err := compile(ctx, b, root, key, opts, relPath(s.Dir, c.File))
	if err != nil {
		return nil, err
	}
	doc, err := runBinary(ctx, bin, b.dir, ContextDocument(s))
	if err != nil {
		return nil, err
	}
	return resultOf(doc)
}

// prepare finds the toolchain and the package of fn, generates its main
// and computes the cache key of the build.
func prepare(ctx context.Context, fn *goFunc) (*goBuild, string, error) {
	gotool, err := findGo()
	if err != nil {
		return nil, "", err
	}
	dir := filepath.Dir(fn.file)
	env, err := goEnv(ctx, gotool, dir)
	if err != nil {
		return nil, "", err
	}
	pkgs, err := listDeps(ctx, gotool, dir)
	if err != nil {
		return nil, "", err
	}
	pkg, err := packageOf(pkgs, fn)
	if err != nil {
		return nil, "", err
	}
	gen, err := generateMain(pkg, fn)
	if err != nil {
		return nil, "", err
	}
	key, err := cacheKey(env, gen, pkgs)
	return &goBuild{gotool: gotool, dir: dir, gen: gen}, key, err
}

// packageOf returns the listed package of fn's file, which must be one of
// its files under the current build constraints.
func packageOf(pkgs []listPackage, fn *goFunc) (*listPackage, error) {
	pkg, err := packageIn(pkgs, filepath.Dir(fn.file))
	if err != nil {
		return nil, err
	}
	if !slices.Contains(pkg.GoFiles, filepath.Base(fn.file)) {
		return nil, fmt.Errorf("%s is not built into package %s (a test file, or excluded by build constraints)", filepath.Base(fn.file), pkg.ImportPath)
	}
	return pkg, nil
}

// compile returns the cached binary or builds it, saying which on opts.Log.
func compile(ctx context.Context, b *goBuild, root, key string, opts Options, name string) (string, error) {
	bin := binaryPath(root, key)
	if cached(bin) {
		markUsed(bin)
		logf(opts, "using compiled %s (cache hit)", name)
		return bin, nil
	}
	logf(opts, "compiling %s (cache miss)", name)
	if err := store(ctx, b, bin); err != nil {
		return "", err
	}
	trimCache(root, filepath.Dir(bin), time.Now())
	return bin, nil
}

// logf writes one progress line when opts asks for them.
func logf(opts Options, format string, args ...any) {
	if opts.Log != nil {
		fmt.Fprintf(opts.Log, format+"\n", args...)
	}
}
