package manifest

import (
	"crypto/sha256"
	"os"

	"github.com/pynenc/piceli/internal/object"
)

// Source is one file objects were read from: its path, as given or as
// found under the directory given, and the SHA-256 of the bytes read.
type Source struct {
	Path string
	Sum  [sha256.Size]byte
}

// Read reads path, a file (as ReadFile) or every manifest file under a
// directory, recursively, in lexical order of their paths (hidden files
// and directories skipped; none is an error), and returns its objects
// with the files they were read from, in the order read.
func Read(path string) ([]object.Declared, []Source, error) {
	files, err := pathFiles(path)
	if err != nil {
		return nil, nil, err
	}
	var docs []object.Declared
	srcs := make([]Source, 0, len(files))
	for _, f := range files {
		data, err := readBounded(f)
		if err != nil {
			return nil, nil, err
		}
		d, err := Decode(f, data)
		if err != nil {
			return nil, nil, err
		}
		docs = append(docs, d...)
		srcs = append(srcs, Source{Path: f, Sum: sha256.Sum256(data)})
	}
	return docs, srcs, nil
}

// Sources returns the files Read would read from path, each with the sum of
// its bytes now, without decoding them: a caller that kept the sources of
// an earlier Read compares them to know whether reading again would give
// the same objects. Any file Read would refuse is an error here too.
func Sources(path string) ([]Source, error) {
	files, err := pathFiles(path)
	if err != nil {
		return nil, err
	}
	srcs := make([]Source, len(files))
	for i, f := range files {
		data, err := readBounded(f)
		if err != nil {
			return nil, err
		}
		srcs[i] = Source{Path: f, Sum: sha256.Sum256(data)}
	}
	return srcs, nil
}

// pathFiles is path itself when it is a file, else the manifest files
// under it as Read reads them (none is an error).
func pathFiles(path string) ([]string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return []string{path}, nil
	}
	files, err := manifestFiles(path)
	if err == nil && len(files) == 0 {
		err = &Error{File: path, Msg: "no .yaml, .yml or .json files"}
	}
	return files, err
}
