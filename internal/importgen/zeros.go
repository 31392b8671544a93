package importgen

import (
	"fmt"
	"reflect"
	"strings"
)

// explicitZeros returns the JSON paths ("spec.minReadySeconds",
// "spec.template.spec.containers[0].volumeMounts[1].readOnly") at which
// manifest m, of Go type t, sets a field to false, 0 or "" that Go leaves
// out when zero: a typed form drops them unless app.Zero (or an option
// such as Mount's ReadWrite) writes them back.
func explicitZeros(m map[string]any, t reflect.Type) []string {
	var out []string
	var walk func(path string, v any, t reflect.Type)
	walk = func(path string, v any, t reflect.Type) {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		switch {
		case opaqueType(t):
		case t.Kind() == reflect.Struct:
			if mm, ok := v.(map[string]any); ok {
				structZeros(path, mm, t, walk, &out)
			}
		case t.Kind() == reflect.Slice:
			if l, ok := v.([]any); ok {
				for i, c := range l {
					walk(fmt.Sprintf("%s[%d]", path, i), c, t.Elem())
				}
			}
		}
	}
	walk("", m, t)
	return out
}

// structZeros records the explicit zeros among the fields of one struct
// and walks into the others.
func structZeros(path string, m map[string]any, t reflect.Type, walk func(string, any, reflect.Type), out *[]string) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if strings.Contains(opts, "inline") || (f.Anonymous && name == "") {
			structZeros(path, m, f.Type, walk, out)
			continue
		}
		c, ok := m[name]
		if !ok {
			continue
		}
		p := name
		if path != "" {
			p = path + "." + name
		}
		if strings.Contains(opts, "omitempty") && scalarKind(f.Type.Kind()) && !opaqueType(f.Type) && zeroScalar(c) {
			*out = append(*out, p)
			continue
		}
		walk(p, c, f.Type)
	}
}

func scalarKind(k reflect.Kind) bool {
	switch k {
	case reflect.Bool, reflect.String, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return true
	}
	return false
}

// opaqueType reports the k8s.io types that encode themselves.
func opaqueType(t reflect.Type) bool {
	return isSpecial(t) || t == rawExtensionType || t == microTimeType
}

func zeroScalar(v any) bool {
	switch t := v.(type) {
	case bool:
		return !t
	case string:
		return t == ""
	case int64:
		return t == 0
	case float64:
		return t == 0
	}
	return false
}
