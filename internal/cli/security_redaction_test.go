package cli

import (
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pynenc/piceli/internal/check"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// encodedLines prints value in the encodings tools print it in, one log
// line per element, each labelled.
func encodedLines(value string) []string {
	v := []byte(value)
	lower := hex.EncodeToString(v)
	var spaced strings.Builder
	for _, c := range v {
		fmt.Fprintf(&spaced, " %02X", c)
	}
	lines := []string{
		"upper-case hex: " + strings.ToUpper(lower),
		"byte-spaced hex (od -An -tx1, upper-case):" + spaced.String(),
		"base32: " + base32.StdEncoding.EncodeToString(v),
		"base32, lower-case, unpadded: " + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(v)),
		"base64url: " + base64.RawURLEncoding.EncodeToString(v),
		"split across lines: " + value[:len(value)/2], value[len(value)/2:],
		"hex split across lines: " + lower[:len(lower)/3], lower[len(lower)/3 : 2*len(lower)/3], lower[2*len(lower)/3:],
		"hexdump -C:",
	}
	return append(lines, strings.Split(strings.TrimRight(hex.Dump(v), "\n"), "\n")...)
}

// encodingLeaks reports a 12-character window of value, its hex, base64,
// base64url or base32 found in text with whitespace dropped and case
// ignored: what a reader could piece the value back from.
func encodingLeaks(text, value string) []string {
	hay := strings.ToLower(strings.Join(strings.Fields(text), ""))
	v := []byte(value)
	var out []string
	for name, f := range map[string]string{"raw": value, "hex": hex.EncodeToString(v), "base64": base64.RawStdEncoding.EncodeToString(v),
		"base64url": base64.RawURLEncoding.EncodeToString(v), "base32": base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(v)} {
		f = strings.ToLower(f)
		for i := 0; i+12 <= len(f); i++ {
			if strings.Contains(hay, f[i:i+12]) {
				out = append(out, name+" "+f[i:i+12])
				break
			}
		}
	}
	return out
}

// A check Job's log printing a generated secret value as upper-case hex,
// byte-spaced hex, base32, split across lines or as a hex dump reached the
// journal, runs/*/archive.json and release run -o json (issue 28,
// hole 7). Every such encoding is now taken out before the excerpt is
// kept.
func TestSecurityRedactionCoversEncodings(t *testing.T) {
	t.Parallel()
	sb := sandboxtest.Cluster(t)
	checks := strings.Join([]string{`[[checks]]`, `name = "chatty job"`, `job = { image = "example.invalid/tool:1", command = ["/print-it"] }`, ``}, "\n")
	r := newSecretRelease(t, sb, checks, []secretKey{{key: "gen", source: `app.Generated("gen", 40)`}}, goComposition{})
	p := r.plan(t)
	value := revealed(t, r.spec, secretName, "")["gen"]
	logs := sandboxtest.WriteCRILog(t, append(encodedLines(value), "done")...)
	sb.OnEveryPod(t, r.ns, sandboxtest.PodRule{Selector: map[string]string{check.CheckOfLabel: "demo"}, Logs: logs})

	var out outputs
	if res := run(t, "release", "apply", "--spec", r.spec, "--approve", p.Hash); res.code != ExitOK {
		t.Fatalf("apply: exit %d\n%s", res.code, res.stderr)
	} else {
		out.add("release apply", res.stdout+res.stderr)
	}
	checked := run(t, "release", "check", "--spec", r.spec, "-o", "json")
	out.add("release check -o json", checked.stdout+checked.stderr)
	if !strings.Contains(checked.stdout, "upper-case hex: "+check.Redacted) || !strings.Contains(checked.stdout, "hexdump -C:") {
		t.Errorf("release check -o json does not show the job's log with the values taken out:\n%s", checked.stdout)
	}
	status := run(t, "release", "run", "--spec", r.spec, "-o", "json")
	out.add("release run -o json", status.stdout+status.stderr)
	for _, o := range out {
		if l := encodingLeaks(o.text, value); len(l) > 0 {
			t.Errorf("the output of %s holds the secret value: %s", o.name, strings.Join(l, "; "))
		}
	}
	swept := 0
	filepath.WalkDir(r.stateDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() && p == filepath.Join(r.stateDir, "secrets") {
			return filepath.SkipDir
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, _ := os.ReadFile(p)
		if strings.Contains(p, "journal") || strings.HasSuffix(p, "archive.json") {
			swept++
		}
		if l := encodingLeaks(string(data), value); len(l) > 0 {
			t.Errorf("%s holds the secret value: %s", p, strings.Join(l, "; "))
		}
		return nil
	})
	if swept < 2 {
		t.Errorf("swept %d journal and archive files under %s, want the run's journal and archive", swept, r.stateDir)
	}
}
