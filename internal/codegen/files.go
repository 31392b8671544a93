package codegen

import (
	"os"
	"strings"

	"github.com/pynenc/piceli/internal/crdgen"
	"github.com/pynenc/piceli/internal/inputfile"
	"github.com/pynenc/piceli/internal/manifest"
)

// fromFiles reads the CRDs of files and directories, each file with the
// bound of inputs and refused unless it is a regular file.
func fromFiles(paths []string) ([]crdgen.Document, int, error) {
	files, err := expand(paths)
	if err != nil {
		return nil, 0, err
	}
	var docs []crdgen.Document
	skipped := 0
	for _, f := range files {
		data, err := inputfile.Read(f, inputfile.SpecLimit)
		if err != nil {
			return nil, 0, refusef("read CRD file: %w", err)
		}
		d, n, err := crdgen.Decode(f, data)
		if err != nil {
			return nil, 0, refuse(err)
		}
		docs = append(docs, d...)
		skipped += n
	}
	if len(docs) == 0 {
		return nil, 0, refusef("no CustomResourceDefinition in %s", strings.Join(paths, ", "))
	}
	return docs, skipped, nil
}

// expand replaces each directory by its manifest files.
func expand(paths []string) ([]string, error) {
	var files []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil || !st.IsDir() {
			files = append(files, p) // inputfile.Read says what is wrong with it
			continue
		}
		found, err := manifest.Files(p)
		if err != nil {
			return nil, refuse(err)
		}
		if len(found) == 0 {
			return nil, refusef("directory %s holds no .yaml, .yml or .json file", p)
		}
		files = append(files, found...)
	}
	return files, nil
}
