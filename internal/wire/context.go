package wire

import (
	"encoding/json"
	"fmt"
	"io"

	pub "github.com/pynenc/piceli/wire"
)

// ContextSchema is the version of the context document.
const ContextSchema = pub.ContextSchema

// ContextDocument is the context document (package wire).
type ContextDocument = pub.ContextDocument

// ReadContext decodes one context document from r and checks its schema.
func ReadContext(r io.Reader) (ContextDocument, error) {
	var cd ContextDocument
	if err := json.NewDecoder(r).Decode(&cd); err != nil {
		return ContextDocument{}, fmt.Errorf("decode context document: %w", err)
	}
	if cd.Schema != ContextSchema {
		return ContextDocument{}, fmt.Errorf("context document has schema %q, want %q", cd.Schema, ContextSchema)
	}
	return cd, nil
}
