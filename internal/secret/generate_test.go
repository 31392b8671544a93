package secret

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/pynenc/piceli/internal/wire"
)

func TestGeneratedValuesKeepToTheirAlphabet(t *testing.T) {
	tests := []struct {
		name     string
		key      wire.SecretKeyInfo
		wantLen  int
		alphabet string
	}{
		{name: "digits only", key: generated("pin", 64, "0123456789"), wantLen: 64, alphabet: "0123456789"},
		{name: "two characters", key: generated("bits", 100, "ab"), wantLen: 100, alphabet: "ab"},
		{name: "multibyte characters count once each", key: generated("runes", 10, "äöü"), wantLen: 10, alphabet: "äöü"},
		{name: "the default is 32 of the default alphabet", key: generated("pw", 0, ""), wantLen: 32, alphabet: wire.DefaultAlphabet},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			v, _ := f.resolve(t, decl(tt.key), ResolveOptions{})
			got := string(v.Values()[tt.key.Key])
			if n := len([]rune(got)); n != tt.wantLen {
				t.Errorf("generated %d characters, want %d", n, tt.wantLen)
			}
			if i := strings.IndexFunc(got, func(r rune) bool { return !strings.ContainsRune(tt.alphabet, r) }); i >= 0 {
				t.Errorf("generated value has a character outside %q at byte %d", tt.alphabet, i)
			}
		})
	}
}

func TestUniformRejectsBiasedDraws(t *testing.T) {
	// For n = 3 the largest multiple of 3 below 2^32 is 2^32-1: the draw
	// 0xffffffff is rejected and the next one, 4, gives 4 % 3 = 1.
	src := bytes.NewReader([]byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 4})
	got, err := Uniform(src, 3)
	if err != nil || got != 1 {
		t.Errorf("Uniform(0xffffffff then 4, 3) = %d, %v, want 1, nil", got, err)
	}
}

func TestGenerateFailsWhenRandomnessRunsOut(t *testing.T) {
	f := newFixture(t)
	f.r.Rand = bytes.NewReader([]byte{1, 2})
	_, _, err := f.r.Resolve(context.Background(), decl(generated("pw", 8, "")), ResolveOptions{})
	if want := `secret "db" key "pw": generate: unexpected EOF`; err == nil || err.Error() != want {
		t.Errorf("Resolve() error = %v, want %s", err, want)
	}
}
