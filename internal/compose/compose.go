package compose

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/pynenc/piceli/internal/compose/chart"
	"github.com/pynenc/piceli/internal/manifest"
	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/spec"
	"github.com/pynenc/piceli/internal/wire"
	pubwire "github.com/pynenc/piceli/wire"
)

// Result is a loaded composition: its objects in declaration order, each
// with its origin ("manifests/a.yaml:12", or what a Go composition
// reported) and, for Go compositions, the components and secret
// declarations it made.
type Result struct {
	Objects    []object.Declared
	Components []wire.ComponentInfo
	Secrets    []wire.SecretInfo
	// Charts and Kustomizations are those a Go composition added; Load
	// has already rendered them into Objects.
	Charts         []pubwire.ChartInfo
	Kustomizations []pubwire.KustomizationInfo
	// Sources are the files a composition of YAML/JSON files was read
	// from, in order; nil for any other composition.
	Sources []manifest.Source
}

// Options tunes Load. The zero value is valid.
type Options struct {
	// Log receives one line per slow step, such as
	// "compiling infra.go (cache miss)". Nil means silent.
	Log io.Writer
	// CacheDir holds compiled compositions. Empty means $PICELI_CACHE_DIR,
	// or else the user cache directory followed by "piceli".
	CacheDir string
	// Charts says how the composition's charts are rendered: their seed
	// and the cluster's capabilities (chart.Options Seed and Cluster);
	// the release name and namespace are the spec's.
	Charts chart.Options
}

// Load loads the composition of s. A Go composition is compiled (or taken
// from the cache), run with the context of s, and its document read; a
// file composition is read without any Go toolchain. The charts and
// kustomizations of release.toml are rendered and their objects appended. Nothing is written
// into the user's tree. A composition without objects is an error.
func Load(ctx context.Context, s *spec.Spec, opts Options) (*Result, error) {
	c := s.Release.Composition
	name := displayName(s.Dir, c)
	var res *Result
	var err error
	switch c.Kind {
	case spec.CompositionGo:
		res, err = loadGo(ctx, s, opts)
	case spec.CompositionFiles:
		res, err = loadFiles(s.Dir, c.File)
	default:
		err = fmt.Errorf("unknown composition kind %q", c.Kind)
	}
	if err == nil {
		err = withPackages(ctx, s, res, opts.Charts)
	}
	if err == nil && len(res.Objects) == 0 {
		err = fmt.Errorf("the composition declares no objects")
	}
	if err != nil {
		return nil, fmt.Errorf("load composition %s: %w", name, err)
	}
	return res, nil
}

// ContextDocument is the context a Go composition of s receives.
func ContextDocument(s *spec.Spec) wire.ContextDocument {
	return wire.ContextDocument{
		Schema:    wire.ContextSchema,
		Release:   s.Release.Name,
		Namespace: s.Target.Namespace,
		Images:    s.Images,
		Values:    s.Values,
		// The environment is already resolved into the rest; the
		// composition may still branch on its name.
		Environment:  s.Environment,
		Environments: s.Environments,
	}
}

// displayName names a composition as release.toml does: "infra.go:Build"
// or "manifests", relative to the spec's directory when inside it.
func displayName(dir string, c spec.Composition) string {
	name := relPath(dir, c.File)
	if c.Func != "" {
		name += ":" + c.Func
	}
	return name
}

// relPath returns path relative to dir when it lies inside dir.
func relPath(dir, path string) string {
	rel, err := filepath.Rel(dir, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return path
	}
	return rel
}
