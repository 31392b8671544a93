package importgen

import (
	"fmt"
	"reflect"

	"github.com/dave/jennifer/jen"
)

// maxEdits bounds the statements of one Edit: past it, the object reads
// better as a literal.
const maxEdits = 12

// editVars names the parameter of an Edit by kind.
var editVars = map[string]string{
	"Deployment": "d", "StatefulSet": "s", "DaemonSet": "ds", "Job": "j", "CronJob": "cj",
	"Service": "svc", "ConfigMap": "cm", "ServiceAccount": "sa", "PersistentVolumeClaim": "pvc", "Namespace": "ns",
}

// pathStep is one step of a Go field path: a field name, or an index.
type pathStep struct {
	field string
	index int
}

// edits writes the assignments that make what the builder wrote equal
// orig, given left: orig with the fields the options say cleared. A node
// no option touched (left equals orig there) is assigned whole; one they
// touched is walked into. A list or map the options touched only in part
// cannot be edited by index and is an error (the recognizer then gives
// up).
func edits(orig, left any) ([][]pathStep, []reflect.Value, error) {
	e := &editWalk{}
	err := e.walk(nil, reflect.ValueOf(orig), reflect.ValueOf(left))
	return e.paths, e.values, err
}

// editWalk collects the assignments of edits.
type editWalk struct {
	paths  [][]pathStep
	values []reflect.Value
}

func (e *editWalk) walk(path []pathStep, o, l reflect.Value) error {
	if l.IsZero() {
		return nil
	}
	if len(path) > 0 && (reflect.DeepEqual(o.Interface(), l.Interface()) || leaf(l.Type())) {
		e.paths, e.values = append(e.paths, append([]pathStep(nil), path...)), append(e.values, l)
		return nil
	}
	switch l.Kind() {
	case reflect.Pointer:
		return e.walk(path, o.Elem(), l.Elem())
	case reflect.Struct:
		return e.fields(path, o, l)
	case reflect.Slice:
		for i := range l.Len() {
			if reflect.DeepEqual(o.Index(i).Interface(), l.Index(i).Interface()) && !l.Index(i).IsZero() {
				return fmt.Errorf("%s: an item no option says beside items options say", goPath(path))
			}
			if err := e.walk(append(append([]pathStep(nil), path...), pathStep{index: i}), o.Index(i), l.Index(i)); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("%s: a %s options say only in part", goPath(path), l.Kind())
}

// fields walks the fields of a struct; an embedded struct (ObjectMeta) is
// walked through, its fields named as Go promotes them.
func (e *editWalk) fields(path []pathStep, o, l reflect.Value) error {
	for i := range l.NumField() {
		f := l.Type().Field(i)
		if !f.IsExported() || f.Type == typeMetaType || l.Field(i).IsZero() {
			continue
		}
		var err error
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			err = e.fields(path, o.Field(i), l.Field(i))
		} else {
			err = e.walk(append(append([]pathStep(nil), path...), pathStep{field: f.Name, index: -1}), o.Field(i), l.Field(i))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// leaf reports whether values of t are assigned whole: scalars and the
// k8s.io types written with constructors.
func leaf(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Struct:
		return isSpecial(t)
	case reflect.Pointer, reflect.Slice, reflect.Map:
		return false
	}
	return true
}

// goPath writes a path for messages: Spec.Template.Spec.Containers[0].
func goPath(path []pathStep) string {
	s := ""
	for _, p := range path {
		if p.index >= 0 && p.field == "" {
			s += fmt.Sprintf("[%d]", p.index)
			continue
		}
		if s != "" {
			s += "."
		}
		s += p.field
	}
	return s
}

// editOption writes app.Edit(func(v *T) { assignments }) for the fields
// left holds that options did not say, or nil when there are none. It
// reports an error when they cannot be written or are more than maxEdits.
func editOption(kind string, orig, left any, l *literal) (jen.Code, error) {
	paths, values, err := edits(orig, left)
	switch {
	case err != nil:
		return nil, err
	case len(paths) == 0:
		return nil, nil
	case len(paths) > maxEdits:
		return nil, fmt.Errorf("%d fields no option says", len(paths))
	}
	v := editVars[kind]
	var body []jen.Code
	for i, p := range paths {
		val, err := l.expr(values[i])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", goPath(p), err)
		}
		target := jen.Id(v)
		for _, s := range p {
			if s.field == "" {
				target = target.Index(jen.Lit(s.index))
			} else {
				target = target.Dot(s.field)
			}
		}
		body = append(body, target.Op("=").Add(val))
	}
	t := reflect.TypeOf(orig).Elem()
	return jen.Qual(appPkg, "Edit").Call(jen.Func().Params(jen.Id(v).Op("*").Qual(t.PkgPath(), t.Name())).Block(body...)), nil
}
