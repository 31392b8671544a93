package check

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
)

func TestTailKeepsTheEndOnALineBoundary(t *testing.T) {
	tests := []struct {
		name   string
		writes []string
		max    int
		want   string
	}{
		{"short output is kept whole", []string{"a\n", "b\n"}, 10, "a\nb\n"},
		{"the partial first line goes", []string{"first line\n", "second\n", "third\n"}, 14, "[11 bytes before this omitted]\nsecond\nthird\n"},
		{"one big write keeps its end", []string{strings.Repeat("x", 30) + "\nend\n"}, 8, "[31 bytes before this omitted]\nend\n"},
		{"no line boundary keeps nothing", []string{strings.Repeat("y", 20)}, 5, "[20 bytes before this omitted]\n"},
		{"many small writes wrap the ring", []string{"1\n", "2\n", "3\n", "4\n", "5\n"}, 5, "[6 bytes before this omitted]\n4\n5\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl := newTail(tt.max)
			for _, w := range tt.writes {
				tl.Write([]byte(w))
			}
			if got := tl.String(); got != tt.want {
				t.Errorf("tail(%d) of %q = %q, want %q", tt.max, tt.writes, got, tt.want)
			}
		})
	}
}

func TestTailOfTenMegabytesIsBounded(t *testing.T) {
	tl := newTail(MaxExcerpt)
	line := strings.Repeat("z", 99) + "\n"
	for range 100_000 {
		tl.Write([]byte(line))
	}
	got := tl.String()
	if len(got) > MaxExcerpt+64 || !strings.HasPrefix(got, "[") || !strings.HasSuffix(got, line) {
		t.Errorf("tail of 10 MB = %d bytes starting %q, want at most %d bytes ending in a whole line", len(got), got[:40], MaxExcerpt+64)
	}
	if len(tl.buf) > MaxExcerpt {
		t.Errorf("tail holds %d bytes, want at most %d", len(tl.buf), MaxExcerpt)
	}
}

func TestRedactorTakesOutEveryForm(t *testing.T) {
	secret := []byte("s3cr3t-Value/+=")
	pem := []byte("-----BEGIN KEY-----\nAAAAbbbbCCCCdddd\nEEEEffff\n-----END KEY-----\n")
	r := NewRedactor([][]byte{secret, pem, []byte("abc")})
	for _, text := range []string{
		string(secret),
		base64.StdEncoding.EncodeToString(secret),
		base64.RawURLEncoding.EncodeToString(secret),
		fmt.Sprintf("%x", secret),
		"s3cr3t-Value%2F%2B%3D",
		"AAAAbbbbCCCCdddd",
		base64.StdEncoding.EncodeToString(append([]byte("a longer blob: "), secret...)),
	} {
		got := r.Redact("before " + text + " after")
		if strings.Contains(got, text) || !strings.Contains(got, Redacted) {
			t.Errorf("Redact(%q) = %q, want it replaced", text, got)
		}
	}
	if got := r.Redact("abc is too short to look for"); got != "abc is too short to look for" {
		t.Errorf("Redact() = %q, want values under %d bytes left alone", got, MinSecret)
	}
}
