package manifest

import (
	"errors"
	"fmt"

	"github.com/pynenc/piceli/internal/object"
)

// Document is one document of a YAML stream or JSON file that holds
// something: Index counts such documents from 1 (blank and comment-only
// documents are not counted), Line is the line its content starts on, and
// Objects are its object or, for a List kind, its items.
type Document struct {
	Index   int
	Line    int
	Objects []object.Declared
}

// DocumentError is an Error in one document of a file: Index counts as
// Document.Index does.
type DocumentError struct {
	Index int
	Err   *Error
}

func (e *DocumentError) Error() string {
	return fmt.Sprintf("%s: document %d (line %d): %s", e.Err.File, e.Index, e.Err.Line, e.Err.Msg)
}

func (e *DocumentError) Unwrap() error { return e.Err }

// Documents is Decode that keeps documents apart, so that a caller can
// name the document an object came from. Its errors are *DocumentError.
func Documents(name string, data []byte) ([]Document, error) {
	var docs []Document
	for _, c := range splitDocuments(data) {
		if isBlank(c.data) {
			continue
		}
		index := len(docs) + 1
		objs, err := decodeDocument(name, c)
		if err != nil {
			return nil, documentError(index, c, err)
		}
		docs = append(docs, Document{Index: index, Line: c.line + leadingBlankLines(c.data), Objects: objs})
	}
	return docs, nil
}

// documentError gives err the document's index.
func documentError(index int, c chunk, err error) error {
	var me *Error
	if !errors.As(err, &me) {
		me = &Error{Msg: err.Error()}
	}
	if me.Line == 0 {
		me.Line = c.line
	}
	return &DocumentError{Index: index, Err: me}
}

// ReadDocuments is Documents of a file, read with the size bound of
// ReadFile.
func ReadDocuments(path string) ([]Document, error) {
	data, err := readBounded(path)
	if err != nil {
		return nil, err
	}
	return Documents(path, data)
}

// Files returns the manifest files under dir as Read reads them:
// recursively, hidden files and directories skipped, in lexical order.
func Files(dir string) ([]string, error) { return manifestFiles(dir) }
