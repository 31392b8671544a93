package wire

import (
	"encoding/json"
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/pynenc/piceli/internal/object"
	pub "github.com/pynenc/piceli/wire"
)

// The protocol's documents live in the public package wire, where users
// read them.
const Schema = pub.Schema

type (
	Document      = pub.Document
	ComponentInfo = pub.ComponentInfo
	PortInfo      = pub.PortInfo
)

// WriteDocument writes doc to w as indented JSON, as a composition
// program's standard output carries it.
func WriteDocument(w io.Writer, doc Document) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("write composition document: %w", err)
	}
	return nil
}

// DecodeDocument parses a composition document and checks its schema.
// Each manifest is decoded on its own, numbers as int64 as the API returns
// them, so a manifest that is not a JSON object is an error naming its
// origin. It does not check a manifest's fields (apiVersion, kind, name);
// the loader does, alike for every kind of composition.
func DecodeDocument(data []byte) (*Document, error) {
	var raw rawDocument
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("decode composition document: %w", err)
	}
	if raw.Schema != Schema {
		return nil, fmt.Errorf("composition document has schema %q, want %q", raw.Schema, Schema)
	}
	doc := raw.Document
	doc.Objects = make([]object.Declared, len(raw.Objects))
	for i, o := range raw.Objects {
		u, err := decodeManifest(o.Origin, o.Manifest)
		if err != nil {
			return nil, err
		}
		doc.Objects[i] = object.Declared{Origin: o.Origin, DependsOn: o.DependsOn, Object: u}
	}
	return &doc, nil
}

// rawDocument is a Document with its manifests undecoded. Its Objects
// shadows Document.Objects: encoding/json fills the shallower field.
type rawDocument struct {
	Document
	Objects []rawObject `json:"objects"`
}

// rawObject is an object.Declared before its manifest is decoded. It
// exists for errors: unstructured.Unstructured decodes itself, but its
// error neither names the object's origin nor leaves a missing kind to the
// loader's check, quoting the whole manifest instead.
type rawObject struct {
	Origin    string          `json:"origin"`
	DependsOn []string        `json:"dependsOn"`
	Manifest  json.RawMessage `json:"manifest"`
}

// decodeManifest decodes one manifest, naming its origin on failure.
func decodeManifest(origin string, data []byte) (*unstructured.Unstructured, error) {
	var m map[string]any
	if err := utiljson.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("decode object from %s: %w", origin, err)
	}
	return &unstructured.Unstructured{Object: m}, nil
}
