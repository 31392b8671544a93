package secret

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pynenc/piceli/internal/wire"
)

// canary is a value that must never leave the store.
const canary = "canary-7Qe9 &<x>/+ü"

// canaryForms returns value raw, base64, hex, URL-escaped and JSON-escaped.
func canaryForms(value string) []string {
	j, _ := json.Marshal(value)
	return []string{
		value,
		base64.StdEncoding.EncodeToString([]byte(value)),
		base64.RawURLEncoding.EncodeToString([]byte(value)),
		hex.EncodeToString([]byte(value)),
		url.QueryEscape(value),
		url.PathEscape(value),
		strings.Trim(string(j), `"`),
	}
}

// assertNoValue fails when any form of any value appears in text.
func assertNoValue(t *testing.T, what, text string, values ...string) {
	t.Helper()
	for _, v := range values {
		for _, form := range canaryForms(v) {
			if strings.Contains(text, form) {
				t.Errorf("%s contains a secret value (form %q):\n%s", what, form, text)
			}
		}
	}
}

func TestCanaryNeverInErrorsOrPrintedVersions(t *testing.T) {
	f := newFixture(t)
	f.env["TOKEN"] = canary + "env"
	f.cluster["other/token"] = canary + "cluster"
	f.writeFile(t, "pw.txt", canary+"file")
	d := decl(fromEnv("env", "TOKEN"), fromFile("file", "pw.txt"), fromCluster("cluster", "other/token"), generated("gen", 40, ""))
	d.Keys = append(d.Keys, generatedTLS("shop.example.com")...)
	v, _ := f.resolve(t, d, ResolveOptions{})
	vals := v.Values()
	secrets := []string{canary, canary + "env", canary + "cluster", canary + "file", string(vals["gen"]), string(vals["tls.key"])}

	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x"} {
		assertNoValue(t, "Sprintf("+verb+", v)", fmt.Sprintf(verb, v), secrets...)
		assertNoValue(t, "Sprintf("+verb+", *v)", fmt.Sprintf(verb, *v), secrets...)
		assertNoValue(t, "Sprintf("+verb+", []*Version)", fmt.Sprintf(verb, []any{v, struct{ V Version }{*v}}), secrets...)
	}
	j, _ := json.Marshal(v)
	assertNoValue(t, "json.Marshal(v)", string(j), secrets...)
	assertNoValue(t, "Show(v)", Show(v), secrets...)
	for _, err := range canaryErrors(t, f, d) {
		assertNoValue(t, "error", err.Error(), secrets...)
	}
}

// canaryErrors provokes every error a store holding canaries can give.
func canaryErrors(t *testing.T, f *fixture, d wire.SecretInfo) []error {
	t.Helper()
	var errs []error
	resolve := func(d wire.SecretInfo) {
		if _, _, err := f.r.Resolve(context.Background(), d, ResolveOptions{}); err != nil {
			errs = append(errs, err)
		} else {
			t.Errorf("Resolve(%v) = nil error, want one", d.Keys)
		}
	}
	f.writeFile(t, "big.txt", strings.Repeat(canary+"file", maxFileSize/10))
	resolve(withKey(d, fromFile("big", "big.txt")))
	resolve(withKey(d, fromFile("missing", "missing.txt")))
	resolve(withKey(d, fromEnv("unset", "UNSET")))
	resolve(withKey(d, fromCluster("gone", "other/gone")))
	resolve(withKey(d, generated("bad", 5000, "")))
	f.r.ReadCluster = func(context.Context, string, string) ([]byte, error) { return nil, errors.New("connection refused") }
	resolve(withKey(d, fromCluster("down", "other/down")))
	errs = append(errs, corruptLatest(t, f.r.Store)...)
	return errs
}

// withKey returns d with one more key.
func withKey(d wire.SecretInfo, k wire.SecretKeyInfo) wire.SecretInfo {
	d.Keys = append(append([]wire.SecretKeyInfo(nil), d.Keys...), k)
	return d
}

// corruptLatest rewrites db's latest version file around the canary and
// returns the errors of loading it.
func corruptLatest(t *testing.T, s *Store) []error {
	t.Helper()
	p := filepath.Join(s.Dir(), "db", "000001.json")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var errs []error
	for _, bad := range []string{string(data[:len(data)/2]), `{"schema": "` + canary + `"}`, `{"keys": "` + canary + `"}`, canary} {
		if err := os.WriteFile(p, []byte(bad), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Latest("db"); err != nil {
			errs = append(errs, err)
		} else {
			t.Errorf("Latest(db) of a corrupt file = nil error, want one")
		}
	}
	return errs
}
