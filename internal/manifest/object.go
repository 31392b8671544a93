package manifest

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/object"
)

// expand checks one decoded document and returns its objects: the document
// itself, or the items of a List kind. Each object needs apiVersion, kind
// and a name and namespace valid for its kind (object.CheckNames).
func expand(name string, line int, u *unstructured.Unstructured) ([]object.Declared, error) {
	src := fmt.Sprintf("%s:%d", name, line)
	if err := checkObject(u); err != nil {
		return nil, &Error{File: name, Line: line, Msg: err.Error()}
	}
	if !isList(u) {
		if u.GetName() == "" {
			return nil, &Error{File: name, Line: line, Msg: u.GetKind() + ": metadata.name is required"}
		}
		if err := object.CheckNames(u); err != nil {
			return nil, &Error{File: name, Line: line, Msg: err.Error()}
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
		if err := checkItem(u); err != nil {
			return nil, &Error{File: name, Line: line, Msg: fmt.Sprintf("%s: item %d: %v", list.GetKind(), i, err)}
		}
		docs = append(docs, object.Declared{Origin: fmt.Sprintf("%s:%d (item %d)", name, line, i), Object: u})
	}
	return docs, nil
}

// checkItem checks one item of a List as expand checks a document.
func checkItem(u *unstructured.Unstructured) error {
	if err := checkObject(u); err != nil {
		return err
	}
	if u.GetName() == "" {
		return fmt.Errorf("%s: metadata.name is required", u.GetKind())
	}
	return object.CheckNames(u)
}
