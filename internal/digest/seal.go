package digest

import (
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/json"
	"fmt"
)

// SealKey derives from a release's digest key the key of one kind of seal
// (stored plans, revisions), named by info and used for nothing else. A
// derived key, not the digest key itself: stored records hold keyed digests
// of Secret values that whoever sets a secret chooses, and with the digest
// key such a digest could be made to equal the seal of an edited record.
func SealKey(digestKey []byte, info string) ([]byte, error) {
	k, err := hkdf.Key(sha256.New, digestKey, nil, info, sha256.Size)
	if err != nil {
		return nil, fmt.Errorf("derive the %s key: %w", info, err)
	}
	return k, nil
}

// Seal is the keyed digest (as Of) of v's JSON encoding under a seal key.
func Seal(sealKey []byte, v any) (string, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	return Of(sealKey, data), nil
}

// Equal reports, in constant time, whether two digests are the same.
func Equal(a, b string) bool { return hmac.Equal([]byte(a), []byte(b)) }
