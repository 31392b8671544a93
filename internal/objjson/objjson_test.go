package objjson

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// same fails unless Marshal(v) is json.Marshal(v), error included.
func same(t *testing.T, v any) {
	t.Helper()
	want, wantErr := json.Marshal(v)
	got, err := Marshal(v)
	if (err == nil) != (wantErr == nil) || string(got) != string(want) {
		t.Errorf("Marshal(%#v) = %q, %v; json.Marshal gives %q, %v", v, got, err, want, wantErr)
	}
}

func TestStringsEscapeAsEncodingJSON(t *testing.T) {
	var all strings.Builder
	for b := range 0x80 {
		all.WriteByte(byte(b))
	}
	for _, s := range []string{
		"", "plain", all.String(), `quote " and backslash \`, "<script>&</script>",
		"tab\tnewline\nreturn\rbackspace\bformfeed\f", "\x00\x1f\x7f",
		"héllo wörld ✓ 🙂", "line\u2028para\u2029end", "bad \xff utf8 \xc3", "\xed\xa0\x80 surrogate",
	} {
		same(t, s)
		same(t, map[string]any{s: s})
	}
}

func TestValuesOfUnstructuredObjectsAsEncodingJSON(t *testing.T) {
	for _, v := range []any{
		nil, true, false, int64(0), int64(-42), int64(math.MaxInt64), int64(math.MinInt64), 7,
		map[string]any{}, map[string]any(nil), []any{}, []any(nil),
		map[string]any{"b": int64(1), "a": []any{"x", nil, true, map[string]any{"z": "", "A": "upper before lower"}}},
		map[string]any{"k1": 1, "k10": 2, "k2": 3, "": "empty key", "é": "non-ASCII key"},
	} {
		same(t, v)
	}
}

func TestWhatItLeavesToEncodingJSONComesOutTheSame(t *testing.T) {
	for _, v := range []any{
		1.5, 1e21, 1e-7, float64(3), math.NaN(), math.Inf(1),
		map[string]any{"f": 0.1, "s": "x"}, []any{int32(3), "x"},
		map[string]any{"n": json.Number("12")}, struct{ A int }{1}, map[string]string{"a": "b"},
	} {
		same(t, v)
	}
}

func TestACycleIsEncodingJSONsError(t *testing.T) {
	m := map[string]any{"a": "b"}
	m["self"] = m
	if _, err := Marshal(m); err == nil {
		t.Error("Marshal of a map holding itself returned no error")
	}
	deep := any("leaf")
	for range maxDepth + 10 {
		deep = []any{deep}
	}
	same(t, deep)
}

func TestPublicManifestsEncodeAsEncodingJSON(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/manifests/*/*.yaml")
	crds, _ := filepath.Glob("../../internal/crdgen/testdata/public/*.yaml")
	files = append(files, crds...)
	if len(files) < 3 {
		t.Fatalf("found %d manifest files, want the repository's public test data", len(files))
	}
	objects := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range strings.Split(string(data), "\n---") {
			var obj map[string]any
			if err := yaml.Unmarshal([]byte(doc), &obj); err != nil || obj == nil {
				continue
			}
			// As unstructured objects hold them: integers as int64.
			var u map[string]any
			dec := json.NewDecoder(strings.NewReader(mustJSON(t, obj)))
			dec.UseNumber()
			if err := dec.Decode(&u); err != nil {
				t.Fatal(err)
			}
			same(t, withInts(u))
			objects++
		}
	}
	t.Logf("%d objects from %d files", objects, len(files))
}

func mustJSON(t *testing.T, v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// withInts turns json.Numbers into int64 or float64, as unstructured
// decoding does.
func withInts(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = withInts(e)
		}
	case []any:
		for i, e := range x {
			x[i] = withInts(e)
		}
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return n
		}
		f, _ := x.Float64()
		return f
	}
	return v
}

func FuzzStringsEncodeAsEncodingJSON(f *testing.F) {
	for _, s := range []string{"", "a\"b", "<&>", "\u2028", "\xff", "\x00\t"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		same(t, map[string]any{s: []any{s, int64(len(s))}})
	})
}
