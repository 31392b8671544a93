package app

import "encoding/json"

// Composition is the validated result of a composition: its objects in
// declaration order, its components and its secret declarations. It is the
// Document a composition program writes. Create one with App.Composition.
type Composition struct {
	doc Document
}

// Document returns the composition as a protocol Document, Schema set.
// The returned value shares no slices with the Composition's own document
// at the top level; manifests are shared and must not be modified.
func (c *Composition) Document() Document {
	d := c.doc
	d.Objects = append([]Object(nil), c.doc.Objects...)
	d.Components = append([]ComponentInfo(nil), c.doc.Components...)
	d.Secrets = append([]SecretInfo(nil), c.doc.Secrets...)
	return d
}

// Objects returns the declared objects in declaration order.
func (c *Composition) Objects() []Object {
	return append([]Object(nil), c.doc.Objects...)
}

// Components returns the typed workloads in declaration order.
func (c *Composition) Components() []ComponentInfo {
	return append([]ComponentInfo(nil), c.doc.Components...)
}

// Secrets returns the secret declarations in declaration order.
func (c *Composition) Secrets() []SecretInfo {
	return append([]SecretInfo(nil), c.doc.Secrets...)
}

// MarshalJSON encodes the composition as its Document.
func (c *Composition) MarshalJSON() ([]byte, error) {
	return json.Marshal(c.doc)
}
