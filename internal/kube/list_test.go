package kube

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestDecodeListMatchesUnstructuredList: DecodeList makes of a LIST body
// exactly what client-go's own decoding does, for a built-in list (items
// without kind), a custom resource list (items with theirs), an empty one
// and one whose items are null.
func TestDecodeListMatchesUnstructuredList(t *testing.T) {
	bodies := map[string]string{
		"built-in": `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"42","continue":"abc"},
			"items":[{"metadata":{"name":"a","namespace":"ns","resourceVersion":"7","generation":3},"data":{"k":"v"}},
			{"metadata":{"name":"b","namespace":"ns","labels":{"x":"y"}},"data":{"n":"1.5"},"binaryData":null}]}`,
		"custom resource": `{"kind":"WidgetList","apiVersion":"piceli.test/v1","metadata":{},
			"items":[{"apiVersion":"piceli.test/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"size":12,"ratio":0.25,"big":12345678901234,"list":[1,"two",null,true,{"deep":[]}]}}]}`,
		"empty":      `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[]}`,
		"null items": `{"kind":"PodList","apiVersion":"v1","metadata":{},"items":null}`,
	}
	for name, body := range bodies {
		t.Run(name, func(t *testing.T) {
			var want unstructured.UnstructuredList
			if err := want.UnmarshalJSON([]byte(body)); err != nil {
				t.Fatalf("client-go's decoding: %v", err)
			}
			got, err := DecodeList([]byte(body))
			if err != nil {
				t.Fatalf("DecodeList: %v", err)
			}
			if diff := cmp.Diff(want.Object, got.Object); diff != "" {
				t.Errorf("list fields (-client-go +DecodeList):\n%s", diff)
			}
			if diff := cmp.Diff(want.Items, got.Items); diff != "" {
				t.Errorf("items (-client-go +DecodeList):\n%s", diff)
			}
		})
	}
}

// TestDecodeListRefusesWhatIsNoList: a body that is not a list is an
// error, never an empty list that would read as "nothing exists".
func TestDecodeListRefusesWhatIsNoList(t *testing.T) {
	for name, body := range map[string]string{
		"not JSON":          `{"kind":"PodList",`,
		"null":              `null`,
		"no kind":           `{"apiVersion":"v1","items":[]}`,
		"items not array":   `{"kind":"PodList","apiVersion":"v1","items":{"a":1}}`,
		"item not object":   `{"kind":"PodList","apiVersion":"v1","items":[1]}`,
		"an array, no list": `[{"kind":"Pod"}]`,
	} {
		if l, err := DecodeList([]byte(body)); err == nil {
			t.Errorf("DecodeList(%s) = %d items, nil error; want an error", name, len(l.Items))
		}
	}
}
