package crdgen

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Schema is the part of an OpenAPI v3 schema (apiextensions.k8s.io/v1
// JSONSchemaProps) the generator reads. Validation keywords it does not
// turn into types (pattern, minimum, maxLength, ...) are ignored: the API
// server checks them.
type Schema struct {
	Type                 string             `json:"type,omitempty"`
	Format               string             `json:"format,omitempty"`
	Description          string             `json:"description,omitempty"`
	Properties           map[string]*Schema `json:"properties,omitempty"`
	Required             []string           `json:"required,omitempty"`
	Items                *Schema            `json:"items,omitempty"`
	AdditionalProperties *Additional        `json:"additionalProperties,omitempty"`
	Enum                 []json.RawMessage  `json:"enum,omitempty"`
	Default              json.RawMessage    `json:"default,omitempty"`
	OneOf                []*Schema          `json:"oneOf,omitempty"`
	AnyOf                []*Schema          `json:"anyOf,omitempty"`
	AllOf                []*Schema          `json:"allOf,omitempty"`
	// PreserveUnknownFields is x-kubernetes-preserve-unknown-fields.
	PreserveUnknownFields bool `json:"x-kubernetes-preserve-unknown-fields,omitempty"`
	// EmbeddedResource is x-kubernetes-embedded-resource.
	EmbeddedResource bool `json:"x-kubernetes-embedded-resource,omitempty"`
	// IntOrString is x-kubernetes-int-or-string.
	IntOrString bool `json:"x-kubernetes-int-or-string,omitempty"`
}

// Additional is additionalProperties: false, true (any value) or a
// schema for the values.
type Additional struct {
	Allows bool
	Schema *Schema
}

// UnmarshalJSON reads a boolean or a schema.
func (a *Additional) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	switch string(data) {
	case "true", "false":
		a.Allows = string(data) == "true"
		return nil
	}
	a.Allows = true
	a.Schema = new(Schema)
	if err := json.Unmarshal(data, a.Schema); err != nil {
		return fmt.Errorf("additionalProperties: %w", err)
	}
	return nil
}

// crdDoc is the part of a CustomResourceDefinition the generator reads.
type crdDoc struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		Group string `json:"group"`
		Names struct {
			Kind   string `json:"kind"`
			Plural string `json:"plural"`
		} `json:"names"`
		Scope    string       `json:"scope"`
		Versions []crdVersion `json:"versions"`
	} `json:"spec"`
}

// crdVersion is one entry of spec.versions.
type crdVersion struct {
	Name   string `json:"name"`
	Served bool   `json:"served"`
	Schema *struct {
		OpenAPIV3Schema json.RawMessage `json:"openAPIV3Schema"`
	} `json:"schema"`
	Subresources *struct {
		Status json.RawMessage `json:"status"`
	} `json:"subresources"`
}
