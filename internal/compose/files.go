package compose

import (
	"os"
	"strings"

	"github.com/pynenc/piceli/internal/manifest"
	"github.com/pynenc/piceli/internal/object"
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
		d.Origin = relOrigin(dir, d.Origin)
		if err := checkObject(d.Origin, d.Object.Object); err != nil {
			return nil, err
		}
		res.Objects = append(res.Objects, d)
	}
	return res, nil
}

// readManifests reads path as a file or as a directory.
func readManifests(path string) ([]object.Declared, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if info.IsDir() {
		return manifest.ReadDir(path)
	}
	return manifest.ReadFile(path)
}

// relOrigin shortens "path:line" origins to paths relative to dir.
func relOrigin(dir, origin string) string {
	i := strings.LastIndexByte(origin, ':')
	if i < 0 {
		return relPath(dir, origin)
	}
	return relPath(dir, origin[:i]) + origin[i:]
}
