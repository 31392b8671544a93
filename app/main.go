package app

import (
	"errors"
	"io"
	"os"

	"github.com/pynenc/piceli/internal/wire"
)

// BuildFunc is the signature of a composition's entry point.
type BuildFunc func(*Context) (*Composition, error)

// Main is what the main Piceli generates for a composition calls. It reads
// a ContextDocument as JSON from standard input, calls build and writes the
// Document as JSON to standard output. When anything fails it writes a
// Document whose Error says why and exits with status 1. Main never returns
// after a failure; it is the only function in this package that exits.
//
// Main stays here, not in the protocol package, because the generated main
// lives in the user's module, which can import this package only.
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
	if werr := wire.WriteDocument(out, doc); werr != nil {
		return errors.Join(err, werr)
	}
	return err
}

// compose decodes the context, calls build and returns its Document.
func compose(in io.Reader, build BuildFunc) (Document, error) {
	cd, err := wire.ReadContext(in)
	if err != nil {
		return Document{}, err
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
