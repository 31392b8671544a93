package importgen

import (
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/pynenc/piceli/internal/builtin"
)

// Typed converts u to its k8s.io/api type. ok is false for kinds without
// one (custom resources, CustomResourceDefinitions); err says why an
// object of a typed kind does not fit its type (a string where a number
// belongs, say). Fields the type does not know are dropped silently: the
// caller compares the result with u to find out.
func Typed(u *unstructured.Unstructured) (obj runtime.Object, ok bool, err error) {
	obj, err = builtin.Scheme().New(u.GroupVersionKind())
	if err != nil {
		return nil, false, nil
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, obj); err != nil {
		return nil, true, fmt.Errorf("%s does not fit its k8s.io/api type: %w", u.GetKind(), fieldError(u, obj, err))
	}
	return obj, true, nil
}

// fieldError names the field a conversion failed on, which the JSON
// decoder says ("cannot unmarshal string into Go struct field
// DeploymentSpec.spec.replicas of type int32") and the converter does not.
func fieldError(u *unstructured.Unstructured, obj runtime.Object, err error) error {
	data, merr := json.Marshal(u.Object)
	if merr != nil {
		return err
	}
	if jerr := json.Unmarshal(data, obj.DeepCopyObject()); jerr != nil {
		return jerr
	}
	return err
}
