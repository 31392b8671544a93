package release

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// A secret version's document carries its schema, key names and
// fingerprints, and never a value.
func TestSecretVersionDocHasNoValue(t *testing.T) {
	v := &SecretVersion{Secret: "app", Number: 2, Created: time.Unix(0, 0).UTC(),
		Keys:   []SecretKey{{Key: "password", Fingerprint: "sha256:abc"}},
		values: map[string][]byte{"password": []byte("canary-value-7f3a")}}
	data, err := json.Marshal(v.Doc())
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Schema string
		Keys   []SecretKey
	}
	if err := json.Unmarshal(data, &doc); err != nil || doc.Schema != SecretVersionSchema || len(doc.Keys) != 1 || doc.Keys[0].Key != "password" {
		t.Errorf("document %s: want schema %s and the key password", data, SecretVersionSchema)
	}
	if strings.Contains(string(data), "canary-value-7f3a") {
		t.Errorf("the document carries the secret value: %s", data)
	}
}
