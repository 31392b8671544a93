package manifest

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/object"
)

// expand checks one decoded document and returns its objects: the document
// itself, or the items of a List kind.
func expand(name string, line int, u *unstructured.Unstructured) ([]object.Declared, error) {
	src := fmt.Sprintf("%s:%d", name, line)
	if err := checkObject(u); err != nil {
		return nil, &Error{File: name, Line: line, Msg: err.Error()}
	}
	if !isList(u) {
		if u.GetName() == "" {
			return nil, &Error{File: name, Line: line, Msg: u.GetKind() + ": metadata.name is required"}
		}
		return []object.Declared{{Origin: src, Object: u}}, nil
	}
	return listItems(name, line, u)
}

func isList(u *unstructured.Unstructured) bool {
	return strings.HasSuffix(u.GetKind(), "List") && u.Object["items"] != nil
}

func checkObject(u *unstructured.Unstructured) error {
	if u.GetAPIVersion() == "" {
		return fmt.Errorf("object has no apiVersion")
	}
	if u.GetKind() == "" {
		return fmt.Errorf("object has no kind")
	}
	return nil
}

func listItems(name string, line int, list *unstructured.Unstructured) ([]object.Declared, error) {
	items, ok := list.Object["items"].([]any)
	if !ok {
		return nil, &Error{File: name, Line: line, Msg: list.GetKind() + ": items must be a list"}
	}
	docs := make([]object.Declared, 0, len(items))
	for i, it := range items {
		m, ok := it.(map[string]any)
		if !ok {
			return nil, &Error{File: name, Line: line, Msg: fmt.Sprintf("%s: item %d is not an object", list.GetKind(), i)}
		}
		u := &unstructured.Unstructured{Object: m}
		if err := checkObject(u); err != nil || u.GetName() == "" {
			return nil, &Error{File: name, Line: line, Msg: fmt.Sprintf("%s: item %d: %s", list.GetKind(), i, itemProblem(u, err))}
		}
		docs = append(docs, object.Declared{Origin: fmt.Sprintf("%s:%d (item %d)", name, line, i), Object: u})
	}
	return docs, nil
}

func itemProblem(u *unstructured.Unstructured, err error) string {
	if err != nil {
		return err.Error()
	}
	return u.GetKind() + ": metadata.name is required"
}
