package wire

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/object"
)

func TestDocumentRoundTrips(t *testing.T) {
	cm := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "cfg"},
		"data": map[string]any{"a": "<&>"}, "binaryData": nil, "spec": map[string]any{"replicas": int64(3)},
	}}
	want := Document{
		Schema:     Schema,
		Objects:    []object.Declared{{Origin: "component web", DependsOn: []string{"db"}, Object: cm}},
		Components: []ComponentInfo{{Name: "web", Kind: "Deployment", Ports: []PortInfo{{Port: 80}}}},
		Secrets:    []SecretInfo{{Name: "db", Keys: []SecretKeyInfo{{Key: "pw", Source: SourceGenerated}}}},
	}
	var buf bytes.Buffer
	if err := WriteDocument(&buf, want); err != nil {
		t.Fatalf("WriteDocument() error = %v", err)
	}
	if !strings.Contains(buf.String(), `"manifest": {`) {
		t.Errorf("WriteDocument() =\n%s\nwant each object's manifest under \"manifest\"", buf.String())
	}
	got, err := DecodeDocument(buf.Bytes())
	if err != nil {
		t.Fatalf("DecodeDocument() error = %v", err)
	}
	if diff := cmp.Diff(&want, got); diff != "" {
		t.Errorf("DecodeDocument(WriteDocument()) (-want +got), numbers must stay int64:\n%s", diff)
	}
}

func TestDecodeDocumentErrors(t *testing.T) {
	tests := []struct {
		name string
		data string
		want string
	}{
		{"another schema is refused", `{"schema":"piceli.composition/v0","objects":[]}`,
			`composition document has schema "piceli.composition/v0", want "piceli.composition/v1"`},
		{"malformed JSON is named as the document", `{"schema":`,
			"decode composition document: "},
		{"a manifest that is not an object names its origin", `{"schema":"piceli.composition/v1","objects":[{"origin":"component web","manifest":[1]}]}`,
			"decode object from component web: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeDocument([]byte(tt.data))
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("DecodeDocument(%s) error = %v, want it to start with %q", tt.data, err, tt.want)
			}
		})
	}
}

func TestReadContext(t *testing.T) {
	got, err := ReadContext(strings.NewReader(`{"schema":"piceli.context/v1","release":"r","namespace":"n","images":{"web":"x"}}`))
	want := ContextDocument{Schema: ContextSchema, Release: "r", Namespace: "n", Images: map[string]string{"web": "x"}}
	if err != nil || !cmp.Equal(want, got) {
		t.Errorf("ReadContext() = %+v, %v; want %+v, nil", got, err, want)
	}
	if _, err := ReadContext(strings.NewReader(`{"schema":"piceli.context/v0"}`)); err == nil || !strings.Contains(err.Error(), `want "piceli.context/v1"`) {
		t.Errorf("ReadContext(another schema) error = %v, want the schema refused", err)
	}
}
