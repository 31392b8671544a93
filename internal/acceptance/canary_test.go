package acceptance

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// canaryValue is a unique secret value whose URL- and JSON-escaped forms
// differ from the raw one, so each encoding is a search of its own.
func canaryValue(t *testing.T) string {
	return "acc-canary-" + randomHex(t, 8) + `-"q&r/s+t<u>`
}

// encodings are the forms a leaked value could take, as TESTING.md lists
// them: raw, base64, hex, URL- and JSON-escaped. Base64 is searched at
// the three alignments the value can have inside a longer encoded text,
// with the characters its neighbours would change cut off.
func encodings(canary string) map[string]string {
	quoted, _ := json.Marshal(canary)
	forms := map[string]string{
		"raw":          canary,
		"hex":          hex.EncodeToString([]byte(canary)),
		"url (query)":  url.QueryEscape(canary),
		"url (path)":   url.PathEscape(canary),
		"json-escaped": strings.Trim(string(quoted), `"`),
	}
	for shift := range 3 {
		enc := base64.StdEncoding.EncodeToString(append(bytes.Repeat([]byte{0}, shift), canary...))
		forms[fmt.Sprintf("base64 (offset %d)", shift)] = enc[4 : len(enc)-4]
	}
	return forms
}

// leaks names the encodings of canary found in data.
func leaks(data []byte, canary string) []string {
	var found []string
	for name, form := range encodings(canary) {
		if bytes.Contains(data, []byte(form)) {
			found = append(found, name)
		}
	}
	slices.Sort(found)
	return found
}

// maxSwept is how much of one file a sweep reads.
const maxSwept = 16 << 20

// sweep searches every regular file under root, except those under skip,
// for every encoding of canary. It returns how many files it read and a
// line for each file holding the value.
func sweep(root, canary string, skip ...string) (int, []string, error) {
	n := 0
	var leaked []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) {
				return nil // a temporary file removed while the walk ran
			}
			return err
		}
		if slices.Contains(skip, p) {
			return filepath.SkipDir
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := readCapped(p)
		if err != nil {
			return err
		}
		if l := leaks(data, canary); len(l) > 0 {
			leaked = append(leaked, fmt.Sprintf("%s holds the secret value (%s)", p, strings.Join(l, ", ")))
		}
		n++
		return nil
	})
	return n, leaked, err
}

// sweepOrFail sweeps and fails the test for every leak; it returns how
// many files it read.
func sweepOrFail(t *testing.T, root, canary string, skip ...string) int {
	t.Helper()
	n, leaked, err := sweep(root, canary, skip...)
	if err != nil {
		t.Errorf("sweep %s: %v", root, err)
	}
	for _, l := range leaked {
		t.Errorf("canary leaked: %s", l)
	}
	return n
}

func readCapped(p string) ([]byte, error) {
	f, err := os.Open(p)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxSwept))
}

// The encodings are distinct searches, and each finds the value where it
// was written that way, embedded in other text.
func TestCanaryEncodingsFindEachForm(t *testing.T) {
	canary := canaryValue(t)
	forms := encodings(canary)
	seen := map[string]string{}
	for name, form := range forms {
		if other, dup := seen[form]; dup {
			t.Errorf("encodings %s and %s are the same text %q", name, other, form)
		}
		seen[form] = name
	}
	for shift := range 3 {
		prefix := strings.Repeat("x", shift)
		text := "data: " + base64.StdEncoding.EncodeToString([]byte(prefix+canary+"tail")) + "\n"
		if l := leaks([]byte(text), canary); len(l) == 0 {
			t.Errorf("leaks() found no base64 of the canary %d bytes into an encoded value", shift)
		}
	}
	if l := leaks([]byte(`{"v":`+string(must(json.Marshal(canary)))+`}`), canary); !slices.Contains(l, "json-escaped") {
		t.Errorf("leaks() of a JSON document holding the canary = %v, want json-escaped among them", l)
	}
	if l := leaks([]byte("nothing here"), canary); len(l) > 0 {
		t.Errorf("leaks() of clean text = %v, want none", l)
	}
}

// sweep reads nested files, finds a value hidden in one, and leaves out
// what it is told to skip.
func TestSweepFindsAPlantedValue(t *testing.T) {
	canary := canaryValue(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "clean.json"), `{"ok":true}`)
	writeFile(t, filepath.Join(dir, "state", "runs", "r1", "journal"), "x"+hex.EncodeToString([]byte(canary))+"y")
	writeFile(t, filepath.Join(dir, "manifests", "secret.yaml"), canary)
	n, leaked, err := sweep(dir, canary, filepath.Join(dir, "manifests"))
	if err != nil || n != 2 || len(leaked) != 1 || !strings.Contains(leaked[0], "journal") || !strings.Contains(leaked[0], "hex") {
		t.Errorf("sweep() = %d files, %q, %v; want 2 files read and the journal's hex leak found", n, leaked, err)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
