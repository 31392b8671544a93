package signer

import (
	"crypto/ed25519"
	"encoding/base64"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	pub := make([]byte, ed25519.PublicKeySize)
	pub[0] = 7
	b64 := base64.StdEncoding.EncodeToString(pub)
	for _, tt := range []struct {
		name, line, wantErr, wantName string
	}{
		{name: "a key and a name parse", line: "ed25519:" + b64 + " alice@laptop", wantName: "alice@laptop"},
		{name: "a name may hold spaces", line: "  ed25519:" + b64 + "   ci runner 2 ", wantName: "ci runner 2"},
		{name: "another algorithm is refused", line: "rsa:" + b64 + " bob", wantErr: `must start with "ed25519:"`},
		{name: "a key of the wrong length is refused", line: "ed25519:" + b64[:20] + " bob", wantErr: "base64 of 32 bytes"},
		{name: "a key that is not base64 is refused", line: "ed25519:!!!! bob", wantErr: "base64 of 32 bytes"},
		{name: "a line without a name is refused", line: "ed25519:" + b64, wantErr: "no name after the key"},
		{name: "a name with a control character is refused", line: "ed25519:" + b64 + " a\x1bb", wantErr: "control characters"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse(tt.line)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Parse(%q) = %v, want an error containing %q", tt.line, err, tt.wantErr)
				}
				return
			}
			if err != nil || s.Name != tt.wantName || !s.Key.Equal(ed25519.PublicKey(pub)) {
				t.Fatalf("Parse(%q) = %+v, %v; want the key and name %q", tt.line, s, err, tt.wantName)
			}
			if again, err := Parse(s.String()); err != nil || again.String() != s.String() {
				t.Errorf("Parse(String()) = %v, %v; want the same signer", again, err)
			}
		})
	}
}

func TestFind(t *testing.T) {
	a, _, _ := ed25519.GenerateKey(nil)
	b, _, _ := ed25519.GenerateKey(nil)
	signers := []Signer{{Key: a, Name: "a"}}
	if s, ok := Find(signers, a); !ok || s.Name != "a" {
		t.Errorf("Find(a) = %v, %v; want signer a", s, ok)
	}
	if _, ok := Find(signers, b); ok {
		t.Errorf("Find(b) found a signer for a key not listed")
	}
}
