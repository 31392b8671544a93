package app

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRun(t *testing.T) {
	quickstart := func(ctx *Context) (*Composition, error) {
		a := New("hello")
		web := a.Deployment("web", Image(ctx.Image("web")), Ports(80))
		a.Service(web, Port(80))
		return a.Composition(ctx)
	}
	tests := []struct {
		name      string
		in        string
		build     BuildFunc
		wantErr   string
		wantKinds []string
	}{
		{
			name:      "a good context yields the composition's objects",
			in:        `{"schema":"piceli.context/v1","release":"hello","namespace":"hello","images":{"web":"nginx@sha256:1"}}`,
			build:     quickstart,
			wantKinds: []string{"Deployment", "Service"},
		},
		{
			name:    "composition errors are written into the document",
			in:      `{"schema":"piceli.context/v1","release":"hello","namespace":"hello"}`,
			build:   quickstart,
			wantErr: `image "web" is not declared in [images] of release.toml`,
		},
		{
			name:    "a context of another schema is refused",
			in:      `{"schema":"piceli.context/v0"}`,
			build:   quickstart,
			wantErr: `context document has schema "piceli.context/v0", want "piceli.context/v1"`,
		},
		{
			name:    "malformed input is refused",
			in:      `{`,
			build:   quickstart,
			wantErr: "decode context document",
		},
		{
			name:    "a build returning nothing is an error",
			in:      `{"schema":"piceli.context/v1"}`,
			build:   func(*Context) (*Composition, error) { return nil, nil },
			wantErr: "returned no composition",
		},
		{
			name:    "a build's own error is reported",
			in:      `{"schema":"piceli.context/v1"}`,
			build:   func(*Context) (*Composition, error) { return nil, errors.New("boom") },
			wantErr: "boom",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			err := run(strings.NewReader(tt.in), &out, tt.build)
			if (err != nil) != (tt.wantErr != "") || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("run() error = %v, want %q", err, tt.wantErr)
			}
			doc := decodeOutput(t, out.Bytes())
			if !strings.Contains(doc.Error, tt.wantErr) || (tt.wantErr == "") != (doc.Error == "") {
				t.Errorf("run() document error = %q, want %q", doc.Error, tt.wantErr)
			}
			if diff := cmp.Diff(tt.wantKinds, kinds(doc)); diff != "" {
				t.Errorf("run() object kinds (-want +got):\n%s", diff)
			}
		})
	}
}

// decodeOutput decodes what run wrote, as the loader does.
func decodeOutput(t *testing.T, data []byte) *Document {
	t.Helper()
	doc, err := DecodeDocument(data)
	if err != nil {
		t.Fatalf("DecodeDocument(%s) error = %v", data, err)
	}
	return doc
}

func kinds(doc *Document) []string {
	var out []string
	for _, o := range doc.Objects {
		out = append(out, o.Object.GetKind())
	}
	return out
}

func TestRunIsDeterministic(t *testing.T) {
	in := `{"schema":"piceli.context/v1","release":"demo","namespace":"demo-ns","images":{"web":"a","db":"b"},"values":{"level":"x"}}`
	build := func(ctx *Context) (*Composition, error) {
		a := New("demo")
		deploymentWithEverything(a, ctx)
		a.Secret("more", FromEnv("z", "Z"), Generated("a", 4), FromFile("m", "m.txt"))
		return a.Composition(ctx)
	}
	var first bytes.Buffer
	if err := run(strings.NewReader(in), &first, build); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		var again bytes.Buffer
		if err := run(strings.NewReader(in), &again, build); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(first.String(), again.String()); diff != "" {
			t.Fatalf("run() output changed between runs (-first +again):\n%s", diff)
		}
	}
}
