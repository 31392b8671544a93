package wire

import "github.com/pynenc/piceli/object"

// Schema is the version of the JSON document a composition program writes.
// Piceli refuses documents of any other schema.
const Schema = "piceli.composition/v1"

// Document is the versioned JSON a composition program writes to standard
// output: the objects it declares, each as {"origin", "dependsOn",
// "manifest"}, and what the engine needs beyond them. Secret values never
// appear in it; secrets are declared by source. A program that failed
// writes a Document with no objects and Error set.
type Document struct {
	Schema     string            `json:"schema"`
	Objects    []object.Declared `json:"objects"`
	Components []ComponentInfo   `json:"components,omitempty"`
	Secrets    []SecretInfo      `json:"secrets,omitempty"`
	// Charts and Kustomizations are rendered by Piceli into more objects.
	Charts         []ChartInfo         `json:"charts,omitempty"`
	Kustomizations []KustomizationInfo `json:"kustomizations,omitempty"`
	Error          string              `json:"error,omitempty"`
}

// ComponentInfo describes a typed component: its name, kind, declared ports
// (for access and checks), readiness hints and the components it depends
// on.
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
	// Environment is the environment of release.toml's [environments]
	// being rendered; empty when the spec declares none.
	Environment string `json:"environment,omitempty"`
	// Environments are the names [environments] declares, sorted; empty
	// when it declares none.
	Environments []string `json:"environments,omitempty"`
}

// Secret source kinds, as they appear in SecretKeyInfo.Source.
const (
	// SourceGenerated values are generated once by Piceli.
	SourceGenerated = "generated"
	// SourceGeneratedTLS values are a self-signed TLS certificate (key
	// tls.crt) and its private key (key tls.key), generated once by
	// Piceli; Ref is the certificate's common name and Hosts its subject
	// alternative names.
	SourceGeneratedTLS = "generated-tls"
	// SourceFile values are read from a file; Ref is its path.
	SourceFile = "file"
	// SourceEnv values are read from an environment variable; Ref names it.
	SourceEnv = "env"
	// SourceCluster values are imported from a cluster Secret; Ref is
	// "secret/key".
	SourceCluster = "cluster"
)

// DefaultAlphabet is the alphabet of generated values whose
// SecretKeyInfo.Alphabet is empty.
const DefaultAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// SecretInfo declares a secret by its source. It never carries a value.
type SecretInfo struct {
	Name string          `json:"name"`
	Keys []SecretKeyInfo `json:"keys"`
}

// SecretKeyInfo names one key of a secret and the source of its value:
// Source is one of the Source constants; Ref is the file path, variable
// name, Secret/key to import from or a TLS certificate's common name;
// Length/Alphabet shape generated values and Hosts lists a generated
// certificate's subject alternative names.
type SecretKeyInfo struct {
	Key      string   `json:"key"`
	Source   string   `json:"source"`
	Ref      string   `json:"ref,omitempty"`
	Length   int      `json:"length,omitempty"`
	Alphabet string   `json:"alphabet,omitempty"`
	Hosts    []string `json:"hosts,omitempty"`
}
