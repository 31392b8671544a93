package wire

import (
	"encoding/json"
	"fmt"
	"io"
)

// ContextSchema is the version of the JSON document Piceli passes to a
// composition program on its standard input.
const ContextSchema = "piceli.context/v1"

// ContextDocument is the versioned JSON Piceli writes to a composition
// program's standard input: the release, its target namespace, its pinned
// images and its values.
type ContextDocument struct {
	Schema    string            `json:"schema"`
	Release   string            `json:"release"`
	Namespace string            `json:"namespace"`
	Images    map[string]string `json:"images,omitempty"`
	Values    map[string]string `json:"values,omitempty"`
}

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
