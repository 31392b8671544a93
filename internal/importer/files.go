package importer

import (
	"fmt"
	"os"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/manifest"
)

// source is one object to import and where it came from.
type source struct {
	origin string // "k8s/web.yaml: document 2", "namespace shop: Deployment/shop/web"
	obj    *unstructured.Unstructured
}

// readFiles reads every object of the files and directories named, in
// order, Secrets' values dropped at once. Every problem is a
// refusal (refusal.Is) naming the file and document.
func readFiles(paths []string) ([]source, error) {
	if len(paths) == 0 {
		return nil, refusef("import yaml: name at least one file or directory")
	}
	var out []source
	for _, p := range paths {
		files, err := filesOf(p)
		if err != nil {
			return nil, refuse(err)
		}
		for _, f := range files {
			objs, err := readFile(f)
			if err != nil {
				return nil, refuse(err)
			}
			out = append(out, objs...)
		}
	}
	return out, nil
}

// filesOf returns p, or the manifest files under the directory p.
func filesOf(p string) ([]string, error) {
	info, err := os.Stat(p)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, bare(err))
	}
	if !info.IsDir() {
		return []string{p}, nil
	}
	files, err := manifest.Files(p)
	if err == nil && len(files) == 0 {
		err = fmt.Errorf("%s: no .yaml, .yml or .json files", p)
	}
	return files, err
}

// readFile reads one file's objects.
func readFile(path string) ([]source, error) {
	docs, err := manifest.ReadDocuments(path)
	if err != nil {
		return nil, err
	}
	var out []source
	for _, d := range docs {
		for i, o := range d.Objects {
			origin := fmt.Sprintf("%s: document %d", path, d.Index)
			if strings.Contains(o.Origin, " (item ") {
				origin = fmt.Sprintf("%s item %d", origin, i)
			}
			forgetSecretValues(o.Object)
			out = append(out, source{origin: origin, obj: o.Object})
		}
	}
	return out, nil
}

// bare drops the path a *os.PathError repeats.
func bare(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
