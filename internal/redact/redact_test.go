package redact

import (
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
)

const canary = "pcl-canary-7f3a9d1e5b2c8046-Zx"

// forms are the encodings a leak check looks for, each lower-cased.
func forms(v string) []string {
	b := []byte(v)
	return []string{v, hex.EncodeToString(b), base64.StdEncoding.EncodeToString(b), base64.URLEncoding.EncodeToString(b),
		base32.StdEncoding.EncodeToString(b)}
}

// leaked reports a 12-character window of any form of v found in out,
// whitespace dropped and case ignored.
func leaked(out, v string) string {
	hay := strings.ToLower(squeeze(out))
	for _, f := range forms(v) {
		f = strings.ToLower(strings.TrimRight(f, "="))
		for i := 0; i+12 <= len(f); i++ {
			if strings.Contains(hay, f[i:i+12]) {
				return f[i : i+12]
			}
		}
	}
	return ""
}

// xxd prints b as xxd does by default.
func xxd(b []byte) string {
	var sb strings.Builder
	for off := 0; off < len(b); off += 16 {
		line := b[off:min(off+16, len(b))]
		fmt.Fprintf(&sb, "%08x: ", off)
		for i := 0; i < 16; i += 2 {
			switch {
			case i+1 < len(line):
				fmt.Fprintf(&sb, "%02x%02x ", line[i], line[i+1])
			case i < len(line):
				fmt.Fprintf(&sb, "%02x   ", line[i])
			default:
				sb.WriteString("     ")
			}
		}
		fmt.Fprintf(&sb, " %s\n", line)
	}
	return sb.String()
}

// hexdumpC prints b as hexdump -C does.
func hexdumpC(b []byte) string {
	var sb strings.Builder
	for off := 0; off < len(b); off += 16 {
		line := b[off:min(off+16, len(b))]
		fmt.Fprintf(&sb, "%08x  ", off)
		for i, c := range line {
			fmt.Fprintf(&sb, "%02x ", c)
			if i == 7 {
				sb.WriteString(" ")
			}
		}
		fmt.Fprintf(&sb, "%s |%s|\n", strings.Repeat("   ", 16-len(line)), line)
	}
	return sb.String()
}

// odTx1 prints b as od -An -tx1 does.
func odTx1(b []byte) string {
	var sb strings.Builder
	for off := 0; off < len(b); off += 16 {
		for _, c := range b[off:min(off+16, len(b))] {
			fmt.Fprintf(&sb, " %02x", c)
		}
		sb.WriteString("\n")
	}
	return sb.String()
}

// wrap splits s into lines of n characters.
func wrap(s string, n int) string {
	var lines []string
	for len(s) > n {
		lines, s = append(lines, s[:n]), s[n:]
	}
	return strings.Join(append(lines, s), "\n")
}

func TestRedactFindsEachEncoding(t *testing.T) {
	v := []byte(canary)
	b64 := base64.StdEncoding.EncodeToString
	tests := []struct {
		name string
		text string
	}{
		{name: "the value as it is", text: canary},
		{name: "lower-case hex", text: hex.EncodeToString(v)},
		{name: "upper-case hex", text: strings.ToUpper(hex.EncodeToString(v))},
		{name: "byte-spaced hex as od -An -tx1 prints it", text: odTx1(v)},
		{name: "byte-spaced upper-case hex", text: strings.ToUpper(odTx1(v))},
		{name: "hex as xxd prints it, offsets and characters", text: xxd(v)},
		{name: "hex as hexdump -C prints it", text: hexdumpC(v)},
		{name: "hex as xxd -p prints it, wrapped", text: wrap(hex.EncodeToString(v), 20)},
		{name: "base64, padded", text: b64(v)},
		{name: "base64 without padding", text: base64.RawStdEncoding.EncodeToString(v)},
		{name: "base64url", text: base64.URLEncoding.EncodeToString(v)},
		{name: "base64url without padding", text: base64.RawURLEncoding.EncodeToString(v)},
		{name: "base64 wrapped at 8 characters", text: wrap(b64(v), 8)},
		{name: "base64 of the value after one byte", text: b64(append([]byte("x"), v...))},
		{name: "base64 of the value after two bytes", text: b64(append([]byte("xy"), v...))},
		{name: "base32", text: base32.StdEncoding.EncodeToString(v)},
		{name: "base32 lower-case without padding", text: strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(v))},
		{name: "base32 of the value after three bytes", text: base32.StdEncoding.EncodeToString(append([]byte("abc"), v...))},
		{name: "the value split across lines", text: canary[:10] + "\n" + canary[10:20] + "\r\n  " + canary[20:]},
		{name: "upper-case hex split across lines", text: wrap(strings.ToUpper(hex.EncodeToString(v)), 7)},
		{name: "JSON-escaped inside a log line", text: `{"msg":"` + jsonEscape(canary) + `"}`},
	}
	r := Strings(canary)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := "before the value\n" + tt.text + "\nafter the value"
			got := r.Redact(text)
			if w := leaked(got, canary); w != "" {
				t.Errorf("Redact(%q) = %q, still holds %q", text, got, w)
			}
			if !strings.Contains(got, Mark) || !strings.HasPrefix(got, "before the value") || !strings.HasSuffix(got, "after the value") {
				t.Errorf("Redact(%q) = %q, want the value replaced by %s and the text around it kept", text, got, Mark)
			}
		})
	}
}

func TestRedactLeavesOtherTextAlone(t *testing.T) {
	r := Strings(canary)
	for _, text := range []string{"", "deadbeef cafe 00000000: 6162 6364  abcd", "a plain log line\nwith two lines"} {
		if got := r.Redact(text); got != text {
			t.Errorf("Redact(%q) = %q, want it unchanged", text, got)
		}
	}
	if got := (Redactor{}).Redact(canary); got != canary {
		t.Errorf("the zero Redactor changed %q to %q", canary, got)
	}
}
