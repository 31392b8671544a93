package manifest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	k8syaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/pynenc/piceli/internal/inputfile"
	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/parallel"
)

// MaxFileSize bounds one manifest file; larger files are refused rather than
// read into memory.
const MaxFileSize = 32 << 20

// Error is a problem in a manifest file at a line (0 when unknown).
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// IsManifestFile reports whether a file name has a manifest extension
// (.yaml, .yml or .json).
func IsManifestFile(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

// ReadFile reads every object of a YAML or JSON file. Each object's origin
// is "path:line" (with " (item i)" for the items of a List), path as given.
func ReadFile(path string) ([]object.Declared, error) {
	data, err := readBounded(path)
	if err != nil {
		return nil, err
	}
	return Decode(path, data)
}

func manifestFiles(dir string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != dir && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.IsDir() && IsManifestFile(d.Name()) {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read manifests in %s: %w", dir, err)
	}
	sort.Strings(files)
	return files, nil
}

func readBounded(path string) ([]byte, error) {
	f, err := inputfile.Open(path, inputfile.Options{})
	if err != nil {
		return nil, fmt.Errorf("read manifest: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("read manifest %s: %w", path, err)
	}
	if len(data) > MaxFileSize {
		return nil, &Error{File: path, Msg: fmt.Sprintf("file is larger than %d MiB", MaxFileSize>>20)}
	}
	return data, nil
}

// Decode reads every object in data, a YAML stream (documents separated by
// "---") or a JSON document. name is used in origins and errors. Empty
// documents are skipped; List kinds are expanded into their items.
func Decode(name string, data []byte) ([]object.Declared, error) {
	chunks := splitDocuments(data)
	decoded := make([][]object.Declared, len(chunks))
	errs := make([]error, len(chunks))
	parallel.Each(len(chunks), parallelFrom, func(i int) { decoded[i], errs[i] = decodeDocument(name, chunks[i]) })
	var docs []object.Declared
	for i := range chunks {
		if errs[i] != nil {
			return nil, errs[i] // the first bad document in the file
		}
		docs = append(docs, decoded[i]...)
	}
	return docs, nil
}

// parallelFrom is the number of documents from which a file's documents
// are decoded on every core: a release of a thousand objects in one file
// spends most of its reading there.
const parallelFrom = 32

// chunk is one YAML document and the line of the file it starts on.
type chunk struct {
	line int
	data []byte
}

// splitDocuments cuts a YAML stream at "---" separator lines. A JSON
// document contains no such line and stays whole.
func splitDocuments(data []byte) []chunk {
	var chunks []chunk
	lines := bytes.SplitAfter(data, []byte("\n"))
	start, cur := 1, []byte{}
	for i, l := range lines {
		if isSeparator(l) {
			chunks = append(chunks, chunk{line: start, data: cur})
			start, cur = i+2, []byte{}
			continue
		}
		cur = append(cur, l...)
	}
	return append(chunks, chunk{line: start, data: cur})
}

func isSeparator(line []byte) bool {
	t := bytes.TrimRight(line, " \t\r\n")
	return bytes.Equal(t, []byte("---")) || bytes.HasPrefix(t, []byte("--- "))
}

func decodeDocument(name string, c chunk) ([]object.Declared, error) {
	if isBlank(c.data) {
		return nil, nil
	}
	var m map[string]any
	if err := unmarshal(c.data, &m); err != nil {
		return nil, syntaxError(name, c, err)
	}
	if m == nil {
		return nil, nil
	}
	line := c.line + leadingBlankLines(c.data)
	return expand(name, line, &unstructured.Unstructured{Object: m})
}

// unmarshal decodes one document: as JSON when it is a valid JSON object,
// so escapes YAML lacks (a surrogate pair such as "\ud83d\ude00") read as
// JSON says, and as YAML otherwise. Both give numbers as int64 or float64.
func unmarshal(data []byte, m *map[string]any) error {
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' && json.Valid(t) {
		return utiljson.Unmarshal(t, m)
	}
	return k8syaml.Unmarshal(data, m)
}

// isBlank reports whether a document holds only blank lines and comments.
func isBlank(data []byte) bool {
	for _, l := range bytes.Split(data, []byte("\n")) {
		t := bytes.TrimSpace(l)
		if len(t) > 0 && t[0] != '#' {
			return false
		}
	}
	return true
}

func leadingBlankLines(data []byte) int {
	n := 0
	for _, l := range bytes.Split(data, []byte("\n")) {
		t := bytes.TrimSpace(l)
		if len(t) > 0 && t[0] != '#' {
			return n
		}
		n++
	}
	return n
}

var yamlLine = regexp.MustCompile(`line (\d+)`)

// syntaxError turns a decoder error into an Error at the absolute line of
// the file. JSON is parsed as YAML, so both carry a line within the document.
func syntaxError(name string, c chunk, err error) error {
	msg := strings.TrimPrefix(err.Error(), "error converting YAML to JSON: ")
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		msg = strings.Replace(msg, "yaml: line "+m[1]+": ", "", 1)
		return &Error{File: name, Line: c.line + n - 1, Msg: "invalid YAML: " + msg}
	}
	return &Error{File: name, Line: c.line, Msg: "invalid YAML: " + msg}
}
