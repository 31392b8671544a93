package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// Format is an output encoding of rendered manifests.
type Format string

// The formats render writes.
const (
	YAML Format = "yaml" // a stream of documents separated by "---"
	JSON Format = "json" // one v1 List holding every object
)

// ParseFormat checks a user-supplied format name.
func ParseFormat(s string) (Format, error) {
	switch Format(s) {
	case YAML, JSON:
		return Format(s), nil
	}
	return "", fmt.Errorf("unknown output format %q (want yaml or json)", s)
}

// Write encodes objs to w in format f. Map keys are sorted, so the same
// objects always give the same bytes.
func Write(w io.Writer, objs []*unstructured.Unstructured, f Format) error {
	data, err := Encode(objs, f)
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}

// Encode returns objs in format f. Secret values are redacted.
func Encode(objs []*unstructured.Unstructured, f Format) ([]byte, error) {
	if f == JSON {
		return encodeList(objs)
	}
	var buf bytes.Buffer
	for i, o := range objs {
		if i > 0 {
			buf.WriteString("---\n")
		}
		data, err := EncodeOne(o, YAML)
		if err != nil {
			return nil, err
		}
		buf.Write(data)
	}
	return buf.Bytes(), nil
}

// EncodeOne returns one object in format f. Secret values are redacted.
func EncodeOne(o *unstructured.Unstructured, f Format) ([]byte, error) {
	o = Redacted(o)
	if f == JSON {
		data, err := json.MarshalIndent(o.Object, "", "  ")
		return append(data, '\n'), err
	}
	data, err := yaml.Marshal(o.Object)
	if err != nil {
		return nil, fmt.Errorf("encode %s/%s: %w", o.GetKind(), o.GetName(), err)
	}
	return data, nil
}

func encodeList(objs []*unstructured.Unstructured) ([]byte, error) {
	items := make([]any, len(objs))
	for i, o := range objs {
		items[i] = Redacted(o).Object
	}
	list := map[string]any{"apiVersion": "v1", "kind": "List", "items": items}
	data, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode list: %w", err)
	}
	return append(data, '\n'), nil
}
