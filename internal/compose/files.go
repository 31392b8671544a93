package compose

import (
	"os"
	"strings"

	"github.com/pynenc/piceli/internal/manifest"
)

// loadFiles reads a YAML/JSON file or a directory of them. Origins are
// relative to the spec's directory.
func loadFiles(dir, path string) (*Result, error) {
	docs, err := readManifests(path)
	if err != nil {
		return nil, err
	}
	res := &Result{}
	for _, d := range docs {
		origin := relOrigin(dir, d.Source)
		if err := checkObject(origin, d.Object.Object); err != nil {
			return nil, err
		}
		res.Objects = append(res.Objects, Object{Origin: origin, Object: d.Object})
	}
	return res, nil
}

// readManifests reads path as a file or as a directory.
func readManifests(path string) ([]manifest.Doc, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if info.IsDir() {
		return manifest.ReadDir(path)
	}
	return manifest.ReadFile(path)
}

// relOrigin shortens "path:line" sources to paths relative to dir.
func relOrigin(dir, source string) string {
	i := strings.LastIndexByte(source, ':')
	if i < 0 {
		return relPath(dir, source)
	}
	return relPath(dir, source[:i]) + source[i:]
}
