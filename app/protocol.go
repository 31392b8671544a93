package app

import (
	"encoding/json"
	"fmt"
)

// Schema is the version of the JSON document a composition program writes.
// Piceli refuses documents of any other schema.
const Schema = "piceli.composition/v1"

// ContextSchema is the version of the JSON document Piceli passes to a
// composition program on its standard input.
const ContextSchema = "piceli.context/v1"

// Document is the versioned JSON a composition program writes to standard
// output: the objects it declares and what the engine needs beyond them.
// Secret values never appear in it; secrets are declared by source.
type Document struct {
	Schema     string          `json:"schema"`
	Objects    []Object        `json:"objects"`
	Components []ComponentInfo `json:"components,omitempty"`
	Secrets    []SecretInfo    `json:"secrets,omitempty"`
	Error      string          `json:"error,omitempty"`
}

// Object is one declared Kubernetes object in a Document together with where
// it came from (a builder component, a file and line, or a typed object).
type Object struct {
	Origin    string         `json:"origin"`
	DependsOn []string       `json:"dependsOn,omitempty"`
	Manifest  map[string]any `json:"manifest"`
}

// ComponentInfo describes a typed component: its name, kind, declared ports
// (for access and checks) and readiness hints.
type ComponentInfo struct {
	Name      string     `json:"name"`
	Kind      string     `json:"kind"`
	Ports     []PortInfo `json:"ports,omitempty"`
	Readiness string     `json:"readiness,omitempty"`
	DependsOn []string   `json:"dependsOn,omitempty"`
}

// PortInfo is one declared port of a component.
type PortInfo struct {
	Name     string `json:"name,omitempty"`
	Port     int32  `json:"port"`
	Protocol string `json:"protocol,omitempty"`
}

// SecretInfo declares a secret by its source. It never carries a value.
type SecretInfo struct {
	Name string          `json:"name"`
	Keys []SecretKeyInfo `json:"keys"`
}

// SecretKeyInfo names one key of a secret and the source of its value:
// Source is "generated", "generated-tls", "file", "env" or "cluster"; Ref is
// the file path, variable name, Secret/key to import from or a TLS
// certificate's common name; Length/Alphabet shape generated values and
// Hosts lists a generated certificate's subject alternative names.
type SecretKeyInfo struct {
	Key      string   `json:"key"`
	Source   string   `json:"source"`
	Ref      string   `json:"ref,omitempty"`
	Length   int      `json:"length,omitempty"`
	Alphabet string   `json:"alphabet,omitempty"`
	Hosts    []string `json:"hosts,omitempty"`
}

// ContextDocument is the versioned JSON Piceli writes to a composition
// program's standard input; it becomes the program's *Context.
type ContextDocument struct {
	Schema    string            `json:"schema"`
	Release   string            `json:"release"`
	Namespace string            `json:"namespace"`
	Images    map[string]string `json:"images,omitempty"`
	Values    map[string]string `json:"values,omitempty"`
}

// DecodeDocument parses and checks the schema of a composition document.
func DecodeDocument(data []byte) (*Document, error) {
	var doc Document
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("decode composition document: %w", err)
	}
	if doc.Schema != Schema {
		return nil, fmt.Errorf("composition document has schema %q, want %q", doc.Schema, Schema)
	}
	return &doc, nil
}
