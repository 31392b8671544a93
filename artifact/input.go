package artifact

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/pynenc/piceli/internal/inputfile"
)

// The kinds of pinned input.
const (
	InputSpec     = "spec"     // the build spec itself
	InputFile     = "file"     // a file read into a layer or compiled
	InputModule   = "module"   // a Go module dependency, by its go.sum hash
	InputLayout   = "layout"   // a base image in a local OCI layout, by manifest digest
	InputTool     = "tool"     // a tool whose version shapes the output
	InputPlatform = "platform" // the OS/architecture the images are for
)

// layoutFormat names how this package writes layers and layouts; it changes
// whenever the same inputs would give other bytes. The gzip output depends
// on the Go version Piceli was built with, so that is part of it too.
var layoutFormat = "piceli-oci/1 " + runtime.Version()

// Input is one pinned input of a build: its kind, a name that says where it
// is (a slash path relative to the project root, an absolute path for files
// outside it, a module path@version, a tool's name) and its digest or
// version. Two builds with the same inputs write the same bytes.
type Input struct {
	Kind   string `json:"kind"`
	Name   string `json:"name"`
	Digest string `json:"digest"`
}

// String names the input as errors do: "file services/api/main.go".
func (in Input) String() string { return in.Kind + " " + in.Name }

// inputSet collects the inputs of one build, keyed by kind and name.
type inputSet struct {
	root   string // files inside it are named relative to it
	inputs map[string]Input
}

func newInputSet(root string) *inputSet { return &inputSet{root: root, inputs: map[string]Input{}} }

func (s *inputSet) add(in Input) { s.inputs[in.String()] = in }

// sorted returns the inputs ordered by kind and name.
func (s *inputSet) sorted() []Input {
	out := make([]Input, 0, len(s.inputs))
	for _, in := range s.inputs {
		out = append(out, in)
	}
	slices.SortFunc(out, func(a, b Input) int { return strings.Compare(a.String(), b.String()) })
	return out
}

// name is how a file at abs is named in the lock: relative to the project
// root when inside it, so that a copy of the project elsewhere pins alike.
func (s *inputSet) name(abs string) string {
	rel, err := filepath.Rel(s.root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(abs)
	}
	return filepath.ToSlash(rel)
}

// addFile pins the file at abs by the SHA-256 of its content (or of its
// link target, for a symbolic link) and its executable bit.
func (s *inputSet) addFile(abs string) error {
	d, err := fileDigest(abs)
	if err != nil {
		return err
	}
	s.add(Input{Kind: InputFile, Name: s.name(abs), Digest: d})
	return nil
}

// addTree pins a file, or every file below a directory.
func (s *inputSet) addTree(abs string) error {
	return walkTree(abs, func(p string, _ fs.DirEntry) error { return s.addFile(p) })
}

// walkTree calls fn for abs when it is a file or link, else for every file
// and link below it, in lexical order. Directories themselves are skipped.
func walkTree(abs string, fn func(string, fs.DirEntry) error) error {
	return filepath.WalkDir(abs, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		if !d.Type().IsRegular() && d.Type()&fs.ModeSymlink == 0 {
			return fmt.Errorf("%s: only regular files, directories and symbolic links can go into an image", p)
		}
		return fn(p, d)
	})
}

// fileDigest is "sha256:<hex>" of a regular file's content, with an "x"
// suffix when it is executable, or of "symlink:" and the target of a link.
func fileDigest(abs string) (string, error) {
	info, err := os.Lstat(abs)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	suffix := ""
	switch {
	case info.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(abs)
		if err != nil {
			return "", err
		}
		io.WriteString(h, "symlink:"+target)
	case info.Mode().IsRegular():
		f, err := inputfile.Open(abs, inputfile.Options{NoFollow: true})
		if err != nil {
			return "", err
		}
		defer f.Close()
		if _, err := io.Copy(h, f); err != nil {
			return "", fmt.Errorf("read %s: %w", abs, err)
		}
		if info.Mode()&0o111 != 0 {
			suffix = "+x"
		}
	default:
		return "", fmt.Errorf("%s is not a regular file or a symbolic link", abs)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)) + suffix, nil
}

// projectRoot is the nearest directory at or above dir holding a go.mod,
// else dir: the root that input names are relative to.
func projectRoot(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return dir
		}
	}
}
