package manifest

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDocumentsIndexTheDocumentsThatHoldSomething(t *testing.T) {
	in := "# header only\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\n\n---\n" +
		"apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: b}}\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: c}}\n"
	docs, err := Documents("f.yaml", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	type doc struct {
		Index, Line int
		Names       []string
	}
	var got []doc
	for _, d := range docs {
		g := doc{Index: d.Index, Line: d.Line}
		for _, o := range d.Objects {
			g.Names = append(g.Names, o.Object.GetName())
		}
		got = append(got, g)
	}
	want := []doc{{Index: 1, Line: 3, Names: []string{"a"}}, {Index: 2, Line: 10, Names: []string{"b", "c"}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Documents() (-want +got):\n%s", diff)
	}
}

func TestDocumentsErrorsNameTheDocument(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"malformed YAML in the second document", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\napiVersion: v1\nkind: x\n  bad: : indent\n", "f.yaml: document 2 (line 8): invalid YAML"},
		{"a document without kind after a comment-only one", "# nothing\n---\napiVersion: v1\nmetadata:\n  name: a\n", "f.yaml: document 1 (line 3): object has no kind"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Documents("f.yaml", []byte(tt.in))
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("Documents() error = %v, want it to start with %q", err, tt.want)
			}
		})
	}
}
