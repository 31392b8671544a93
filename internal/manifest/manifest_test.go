package manifest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pynenc/piceli/internal/object"
)

func origins(docs []object.Declared) []string {
	var s []string
	for _, d := range docs {
		s = append(s, d.Origin+" "+d.Object.GetKind()+"/"+d.Object.GetName())
	}
	return s
}

func TestDecode(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{
			name: "a multi-document stream names each document's first line",
			in:   "# leading comment\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\n\napiVersion: v1\nkind: Service\nmetadata:\n  name: b\n",
			want: []string{"f.yaml:2 ConfigMap/a", "f.yaml:8 Service/b"},
		},
		{
			name: "empty and comment-only documents are skipped",
			in:   "---\n# nothing\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\n",
			want: []string{"f.yaml:4 ConfigMap/a"},
		},
		{
			name: "a List kind is expanded into its items",
			in:   `{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}},{"apiVersion":"v1","kind":"Secret","metadata":{"name":"y"}}]}`,
			want: []string{"f.yaml:1 (item 0) ConfigMap/x", "f.yaml:1 (item 1) Secret/y"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			docs, err := Decode("f.yaml", []byte(tt.in))
			if err != nil {
				t.Fatalf("Decode() error = %v", err)
			}
			if diff := cmp.Diff(tt.want, origins(docs)); diff != "" {
				t.Errorf("Decode() sources (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecodeKeepsIntegers(t *testing.T) {
	docs, err := Decode("f.yaml", []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: a\nspec:\n  replicas: 3\n"))
	if err != nil {
		t.Fatal(err)
	}
	got := docs[0].Object.Object["spec"].(map[string]any)["replicas"]
	if _, ok := got.(int64); !ok {
		t.Errorf("replicas decoded as %T, want int64 (float64 breaks readiness rules)", got)
	}
}

// TestDecodeReadsJSONAsJSON is a minor item of issue 28: valid JSON with
// a surrogate-pair escape was refused as invalid YAML.
func TestDecodeReadsJSONAsJSON(t *testing.T) {
	in := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"emoji"},"data":{"smile":"\ud83d\ude00","n":"1"},"spec":{"replicas":3}}`
	docs, err := Decode("f.json", []byte(in))
	if err != nil {
		t.Fatalf("Decode(JSON with a surrogate pair) error = %v", err)
	}
	data := docs[0].Object.Object["data"].(map[string]any)
	if data["smile"] != "\U0001F600" {
		t.Errorf("data.smile = %q, want the emoji U+1F600", data["smile"])
	}
	if _, ok := docs[0].Object.Object["spec"].(map[string]any)["replicas"].(int64); !ok {
		t.Errorf("replicas of a JSON document decoded as %T, want int64", docs[0].Object.Object["spec"].(map[string]any)["replicas"])
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"malformed YAML names the absolute line", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\napiVersion: v1\nkind: x\n  bad: : indent\n", "f.yaml:8: invalid YAML"},
		{"a document without kind is refused", "apiVersion: v1\nmetadata:\n  name: a\n", "f.yaml:1: object has no kind"},
		{"a document without apiVersion is refused", "kind: ConfigMap\nmetadata:\n  name: a\n", "f.yaml:1: object has no apiVersion"},
		{"a document without a name is refused", "apiVersion: v1\nkind: ConfigMap\n", "f.yaml:1: ConfigMap: metadata.name is required"},
		{"a List item without a name is refused", `{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"ConfigMap"}]}`, "f.yaml:1: List: item 0: ConfigMap: metadata.name is required"},
		{"malformed JSON names the line", "{\n\"apiVersion\": \"v1\",\n\"kind\" \"ConfigMap\"\n}\n", "f.yaml:"},
		{"a name that climbs out of a directory names the key", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x/../../victim\n", `f.yaml:1: ConfigMap/"x/../../victim": metadata.name: `},
		{"a name with a newline is quoted", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: \"a\\n*/\"\n", `f.yaml:1: ConfigMap/"a\n*/": metadata.name: `},
		{"a bad namespace names the key", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: ../x\n", `f.yaml:1: ConfigMap/"../x"/a: metadata.namespace "../x": `},
		{"a List item with a bad name names the item", `{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"A"}}]}`, `f.yaml:1: List: item 0: ConfigMap/A: metadata.name: `},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode("f.yaml", []byte(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Decode() error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestReadOfADirectory(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cm := func(n string) string { return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + n + "\n" }
	write("b.yaml", cm("b"))
	write("a/z.yml", cm("z"))
	write(".hidden/x.yaml", cm("hidden"))
	write("notes.txt", "not a manifest")
	docs, srcs, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "a/z.yml") + ":1 ConfigMap/z", filepath.Join(dir, "b.yaml") + ":1 ConfigMap/b"}
	if diff := cmp.Diff(want, origins(docs)); diff != "" {
		t.Errorf("Read() (-want +got):\n%s", diff)
	}
	if len(srcs) != 2 || srcs[0].Path != filepath.Join(dir, "a/z.yml") || srcs[1].Path != filepath.Join(dir, "b.yaml") {
		t.Errorf("Read() sources = %+v, want a/z.yml then b.yaml", srcs)
	}
}

func TestReadRefusals(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := Read(dir); err == nil || !strings.Contains(err.Error(), "no .yaml") {
		t.Errorf("Read(empty dir) error = %v, want no manifest files", err)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing.yaml")); err == nil || !strings.Contains(err.Error(), "missing.yaml") {
		t.Errorf("ReadFile(missing) error = %v, want the path named", err)
	}
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, make([]byte, MaxFileSize+1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(big); err == nil || !strings.Contains(err.Error(), "big.yaml: file is larger") {
		t.Errorf("ReadFile(huge) error = %v, want a size refusal naming the file", err)
	}
}

// A file of many documents, decoded on every core, keeps its order, and a
// bad document is reported as the first one in the file, whichever core
// reached it first.
func TestDecodeManyDocumentsKeepsOrderAndTheFirstError(t *testing.T) {
	var b strings.Builder
	n := 4 * parallelFrom
	for i := range n {
		fmt.Fprintf(&b, "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-%d\n", i)
	}
	docs, err := Decode("many.yaml", []byte(b.String()))
	if err != nil || len(docs) != n {
		t.Fatalf("Decode = %d documents, %v; want %d", len(docs), err, n)
	}
	for i, d := range docs {
		if want := fmt.Sprintf("cm-%d", i); d.Object.GetName() != want {
			t.Fatalf("document %d is %s; want %s", i, d.Object.GetName(), want)
		}
	}
	lines := strings.SplitAfter(b.String(), "\n")
	bad := func(doc int) { lines[doc*5+4] = "  name: [unclosed\n" } // its name line
	bad(3 * parallelFrom)
	bad(parallelFrom + 1)
	_, err = Decode("many.yaml", []byte(strings.Join(lines, "")))
	var e *Error
	if !errors.As(err, &e) || e.Line != (parallelFrom+1)*5+5 {
		t.Fatalf("Decode with documents %d and %d bad = %v; want an Error at line %d (the first)", parallelFrom+1, 3*parallelFrom, err, (parallelFrom+1)*5+5)
	}
}
