package app

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// step is one element of a Zero path: a field name, or a list index.
type step struct {
	field string
	index int // -1 for a field
}

// parsePath splits "spec.containers[0].stdin" into its steps.
func parsePath(path string) ([]step, error) {
	if path == "" {
		return nil, fmt.Errorf("path is empty")
	}
	var steps []step
	for _, part := range strings.Split(path, ".") {
		name, rest, _ := strings.Cut(part, "[")
		if name == "" {
			return nil, fmt.Errorf("empty field name")
		}
		steps = append(steps, step{field: name, index: -1})
		for rest != "" {
			num, after, ok := strings.Cut(rest, "]")
			i, err := strconv.Atoi(num)
			if !ok || err != nil || i < 0 || (after != "" && after[0] != '[') {
				return nil, fmt.Errorf("bad list index in %q", part)
			}
			steps = append(steps, step{index: i})
			rest = strings.TrimPrefix(after, "[")
		}
	}
	return steps, nil
}

// checkZero checks that path names a zero scalar field of obj.
func checkZero(obj any, path string) error {
	steps, err := parsePath(path)
	if err != nil {
		return err
	}
	v := reflect.ValueOf(obj)
	for _, s := range steps {
		if v, err = follow(v, s); err != nil {
			return err
		}
	}
	if v.Kind() == reflect.Pointer && isScalarKind(v.Type().Elem().Kind()) {
		return fmt.Errorf("a pointer field (%s) keeps its zero value without Zero", v.Type())
	}
	if !isScalarKind(v.Kind()) {
		return fmt.Errorf("not a bool, number or string field but %s", v.Type())
	}
	if !v.IsZero() {
		return fmt.Errorf("the field is set to %v", v.Interface())
	}
	return nil
}

// follow takes one step into v; a nil pointer on the way stands for its
// zero value, a list must hold the index.
func follow(v reflect.Value, s step) (reflect.Value, error) {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			v = reflect.Zero(v.Type().Elem())
			continue
		}
		v = v.Elem()
	}
	if s.index >= 0 {
		if v.Kind() != reflect.Slice || s.index >= v.Len() {
			return v, fmt.Errorf("no list item [%d] there", s.index)
		}
		return v.Index(s.index), nil
	}
	if v.Kind() != reflect.Struct {
		return v, fmt.Errorf("no field %q in %s", s.field, v.Type())
	}
	if f, ok := jsonField(v, s.field); ok {
		return f, nil
	}
	return v, fmt.Errorf("no field %q in %s", s.field, v.Type())
}

// jsonField returns the field of struct v whose JSON name is name, looking
// into inline (embedded) structs.
func jsonField(v reflect.Value, name string) (reflect.Value, bool) {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		tag, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || tag == "-" {
			continue
		}
		if strings.Contains(opts, "inline") || (f.Anonymous && tag == "") {
			if got, ok := jsonField(v.Field(i), name); ok {
				return got, true
			}
			continue
		}
		if tag == name {
			return v.Field(i), true
		}
	}
	return reflect.Value{}, false
}

func isScalarKind(k reflect.Kind) bool {
	switch k {
	case reflect.Bool, reflect.String, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return true
	}
	return false
}

// setZeros writes the zero value of the field at each path into the
// manifest m of obj, making the maps on the way; the paths were checked
// against obj.
func setZeros(m map[string]any, obj any, paths []string) error {
	for _, p := range paths {
		steps, err := parsePath(p)
		if err != nil {
			return err
		}
		zero, err := zeroOf(obj, steps)
		if err != nil {
			return fmt.Errorf("zero %q: %w", p, err)
		}
		if err := setPath(m, steps, zero); err != nil {
			return fmt.Errorf("zero %q: %w", p, err)
		}
	}
	return nil
}

// zeroOf returns the manifest form of the zero value at steps.
func zeroOf(obj any, steps []step) (any, error) {
	v := reflect.ValueOf(obj)
	var err error
	for _, s := range steps {
		if v, err = follow(v, s); err != nil {
			return nil, err
		}
	}
	switch v.Kind() {
	case reflect.Bool:
		return false, nil
	case reflect.String:
		return "", nil
	case reflect.Float32, reflect.Float64:
		return float64(0), nil
	}
	return int64(0), nil
}

// setPath sets the value at steps in m.
func setPath(m map[string]any, steps []step, value any) error {
	var cur any = m
	for i, s := range steps {
		last := i == len(steps)-1
		if s.index >= 0 {
			l, ok := cur.([]any)
			if !ok || s.index >= len(l) {
				return fmt.Errorf("no list item [%d] in the manifest", s.index)
			}
			if last {
				l[s.index] = value
				return nil
			}
			cur = l[s.index]
			continue
		}
		mm, ok := cur.(map[string]any)
		if !ok {
			return fmt.Errorf("%q is not an object in the manifest", s.field)
		}
		if last {
			mm[s.field] = value
			return nil
		}
		if _, ok := mm[s.field]; !ok && steps[i+1].index < 0 {
			mm[s.field] = map[string]any{}
		}
		cur = mm[s.field]
	}
	return nil
}
