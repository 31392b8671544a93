package wire

import pub "github.com/pynenc/piceli/wire"

// Secret source kinds, as they appear in SecretKeyInfo.Source.
const (
	SourceGenerated    = pub.SourceGenerated
	SourceGeneratedTLS = pub.SourceGeneratedTLS
	SourceFile         = pub.SourceFile
	SourceEnv          = pub.SourceEnv
	SourceCluster      = pub.SourceCluster
)

// DefaultAlphabet is the alphabet of generated values whose
// SecretKeyInfo.Alphabet is empty.
const DefaultAlphabet = pub.DefaultAlphabet

// The secret declarations live in the public package wire.
type (
	SecretInfo    = pub.SecretInfo
	SecretKeyInfo = pub.SecretKeyInfo
)
