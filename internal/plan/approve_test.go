package plan

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSecurityApprovalTakesOnlyHexDigits is hole 9 of issue 28 in the plan
// store: Load matched the approved hash as a file-name pattern, so
// "dd2a********" loaded a plan nobody approved by its hash and "../"
// probed files outside plans/. Only 12 to 64 lower-case hex digits (after
// an optional "sha256:") are taken, compared as strings.
func TestSecurityApprovalTakesOnlyHexDigits(t *testing.T) {
	dir := t.TempDir()
	hash := storeAt(t, dir, "a", t0)
	hex := strings.TrimPrefix(hash, "sha256:")
	if err := os.WriteFile(filepath.Join(dir, "x.json"), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	refused := []struct{ name, given string }{
		{"a glob of stars", hex[:4] + strings.Repeat("*", 8)},
		{"a glob of question marks", hex[:4] + strings.Repeat("?", 60)},
		{"a character class", "[0-9a-f]" + hex[1:12]},
		{"a path out of the store", "../x"},
		{"a path with enough hex digits", "../../" + hex[:12]},
		{"upper case", strings.ToUpper(hex)},
		{"11 digits", hex[:11]},
		{"65 digits", hex + "0"},
		{"a prefix other than sha256:", "sha512:" + hex},
		{"an empty hash", ""},
		{"spaces around the digits", " " + hex[:12]},
	}
	for _, tt := range refused {
		t.Run(tt.name+" is refused", func(t *testing.T) {
			if _, _, err := Load(dir, tt.given); !errors.Is(err, ErrBadHash) {
				t.Errorf("Load(%q) error = %v, want ErrBadHash", tt.given, err)
			}
		})
	}
	for _, given := range []string{hex[:12], hash[:7+12], hex, hash} {
		if _, full, err := Load(dir, given); err != nil || full != hash {
			t.Errorf("Load(%q) = %s, %v; want plan %s", given, full, err, ShortHash(hash))
		}
	}
}

func TestParseHash(t *testing.T) {
	const full = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	tests := []struct {
		name, given, want string
	}{
		{"a full hash with its prefix gives its digits", "sha256:" + full, full},
		{"twelve digits are a prefix", full[:12], full[:12]},
		{"sixty-four digits are a whole hash", full, full},
		{"eleven digits after sha256: are refused", "sha256:" + full[:11], ""},
		{"a star is refused", full[:12] + "*", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseHash(tt.given)
			if tt.want == "" {
				if !errors.Is(err, ErrBadHash) {
					t.Errorf("ParseHash(%q) = %q, %v; want ErrBadHash", tt.given, got, err)
				}
				return
			}
			if got != tt.want || err != nil {
				t.Errorf("ParseHash(%q) = %q, %v; want %q", tt.given, got, err, tt.want)
			}
		})
	}
}
