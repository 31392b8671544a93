package wire

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
