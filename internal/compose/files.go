package compose

import (
	"strings"

	"github.com/pynenc/piceli/internal/manifest"
	"github.com/pynenc/piceli/internal/spec"
)

// loadFiles reads a YAML/JSON file or a directory of them. Origins are
// relative to the spec's directory.
func loadFiles(dir, path string) (*Result, error) {
	docs, srcs, err := manifest.Read(path)
	if err != nil {
		return nil, err
	}
	res := &Result{Sources: srcs}
	for _, d := range docs {
		d.Origin = relOrigin(dir, d.Origin)
		if err := checkObject(d.Origin, d.Object.Object); err != nil {
			return nil, err
		}
		res.Objects = append(res.Objects, d)
	}
	return res, nil
}

// Sources returns the files a composition of YAML/JSON files reads, with
// the sums of their bytes now (manifest.Sources); ok is false for a
// composition whose objects depend on more than those files: a Go
// composition, or one with charts or kustomizations.
func Sources(s *spec.Spec) (srcs []manifest.Source, ok bool, err error) {
	if !FilesOnly(s) {
		return nil, false, nil
	}
	srcs, err = manifest.Sources(s.Release.Composition.File)
	return srcs, err == nil, err
}

// FilesOnly reports whether the objects of s are its composition's files
// and nothing else: a composition of YAML/JSON files, without charts or
// kustomizations. Its Result.Sources then say all its objects came from.
func FilesOnly(s *spec.Spec) bool {
	return s.Release.Composition.Kind == spec.CompositionFiles && len(s.Charts) == 0 && len(s.Kustomizations) == 0
}

// relOrigin shortens "path:line" origins to paths relative to dir.
func relOrigin(dir, origin string) string {
	i := strings.LastIndexByte(origin, ':')
	if i < 0 {
		return relPath(dir, origin)
	}
	return relPath(dir, origin[:i]) + origin[i:]
}
