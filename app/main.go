package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// BuildFunc is the signature of a composition's entry point.
type BuildFunc func(*Context) (*Composition, error)

// Main is what the main Piceli generates for a composition calls. It reads
// a ContextDocument as JSON from standard input, calls build and writes the
// Document as JSON to standard output. When anything fails it writes a
// Document whose Error says why and exits with status 1. Main never returns
// after a failure; it is the only function in this package that exits.
func Main(build func(*Context) (*Composition, error)) {
	if err := run(os.Stdin, os.Stdout, build); err != nil {
		os.Exit(1)
	}
}

// run is Main without the exit: it always writes one Document to out and
// returns the error it reported in it, if any.
func run(in io.Reader, out io.Writer, build BuildFunc) error {
	doc, err := compose(in, build)
	if err != nil {
		doc = Document{Schema: Schema, Objects: []Object{}, Error: err.Error()}
	}
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	if werr := enc.Encode(doc); werr != nil {
		return errors.Join(err, fmt.Errorf("write composition document: %w", werr))
	}
	return err
}

// compose decodes the context, calls build and returns its Document.
func compose(in io.Reader, build BuildFunc) (Document, error) {
	var cd ContextDocument
	if err := json.NewDecoder(in).Decode(&cd); err != nil {
		return Document{}, fmt.Errorf("decode context document: %w", err)
	}
	if cd.Schema != ContextSchema {
		return Document{}, fmt.Errorf("context document has schema %q, want %q", cd.Schema, ContextSchema)
	}
	c, err := build(NewContext(cd))
	if err != nil {
		return Document{}, err
	}
	if c == nil {
		return Document{}, errors.New("composition function returned no composition")
	}
	return c.Document(), nil
}
