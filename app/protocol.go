package app

import (
	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/wire"
	protocol "github.com/pynenc/piceli/wire"
)

// Schema ("piceli.composition/v1") is the version of the JSON document a
// composition program writes. Piceli refuses documents of any other schema.
const Schema = wire.Schema

// ContextSchema ("piceli.context/v1") is the version of the JSON document
// Piceli passes to a composition program on its standard input.
const ContextSchema = wire.ContextSchema

// Document is the versioned JSON a composition program writes to standard
// output: Schema, the declared Objects, the typed Components, the Secrets
// declared by source and, when the composition failed, its Error. Secret
// values never appear in it.
type Document = protocol.Document

// Object is one declared Kubernetes object of a Document: Origin says where
// it came from (a builder component, a file and line, or a typed object),
// DependsOn names the components it is applied after, and Object is its
// manifest (*unstructured.Unstructured), written to the document as
// "manifest".
type Object = object.Declared

// ComponentInfo describes a typed component: its Name, Kind, declared Ports
// (for access and checks), Readiness hint and DependsOn.
type ComponentInfo = protocol.ComponentInfo

// PortInfo is one declared port of a component: Name, Port and Protocol.
type PortInfo = protocol.PortInfo

// SecretInfo declares a secret by its source: its Name and Keys. It never
// carries a value.
type SecretInfo = protocol.SecretInfo

// SecretKeyInfo names one key of a secret and the source of its value:
// Source is SourceGenerated, SourceGeneratedTLS, SourceFile, SourceEnv or
// SourceCluster; Ref is the file path, variable name, Secret/key to import
// from or a TLS certificate's common name; Length/Alphabet shape generated
// values and Hosts lists a generated certificate's subject alternative
// names.
type SecretKeyInfo = protocol.SecretKeyInfo

// ContextDocument is the versioned JSON Piceli writes to a composition
// program's standard input (Schema, Release, Namespace, Images, Values); it
// becomes the program's *Context.
type ContextDocument = protocol.ContextDocument

// DecodeDocument parses and checks the schema of a composition document, as
// Piceli does. Numbers in manifests decode as int64.
func DecodeDocument(data []byte) (*Document, error) {
	return wire.DecodeDocument(data)
}
