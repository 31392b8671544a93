package importgen

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/dave/jennifer/jen"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Import paths the generated code uses besides k8s.io/api.
const (
	appPkg      = "github.com/pynenc/piceli/app"
	ptrPkg      = "k8s.io/utils/ptr"
	resourcePkg = "k8s.io/apimachinery/pkg/api/resource"
	intstrPkg   = "k8s.io/apimachinery/pkg/util/intstr"
	metav1Pkg   = "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// errUnsupported marks a value no Go literal is written for (a raw
// extension, an interface); its object stays a YAML file.
var errUnsupported = errors.New("no Go literal for this type")

var (
	quantityType     = reflect.TypeFor[resource.Quantity]()
	intOrStringType  = reflect.TypeFor[intstr.IntOrString]()
	timeType         = reflect.TypeFor[metav1.Time]()
	durationType     = reflect.TypeFor[metav1.Duration]()
	typeMetaType     = reflect.TypeFor[metav1.TypeMeta]()
	microTimeType    = reflect.TypeFor[metav1.MicroTime]()
	rawExtensionType = reflect.TypeFor[runtime.RawExtension]()
	// imageHolders are the struct types whose Image field names a
	// container image, written as ctx.Image(name).
	imageHolders = []reflect.Type{reflect.TypeFor[corev1.Container](), reflect.TypeFor[corev1.EphemeralContainerCommon]()}
)

// literal writes Go expressions for values of k8s.io/api types: composite
// literals with zero fields left out, so the expression evaluates to the
// same Go value. An object's own TypeMeta is for the caller to clear
// (app.Objects fills it in); a template's stays.
type literal struct {
	// image returns the expression of a container image reference.
	image func(ref string) jen.Code
	// usedImage records that image was called.
	usedImage bool
}

// expr returns the expression of v, or errUnsupported.
func (l *literal) expr(v reflect.Value) (jen.Code, error) {
	if c, ok, err := l.special(v); ok {
		return c, err
	}
	switch v.Kind() {
	case reflect.Pointer:
		return l.pointer(v)
	case reflect.Struct:
		return l.composite(v, true)
	case reflect.Slice:
		return l.slice(v)
	case reflect.Map:
		return l.mapping(v)
	case reflect.String:
		return str(v.String()), nil
	case reflect.Bool:
		return jen.Lit(v.Bool()), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return jen.Lit(int(v.Int())), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return jen.Lit(int(v.Uint())), nil
	case reflect.Float32, reflect.Float64:
		return jen.Lit(v.Float()), nil
	}
	return nil, fmt.Errorf("%s: %w", v.Type(), errUnsupported)
}

// special writes the types that have constructors instead of fields.
func (l *literal) special(v reflect.Value) (jen.Code, bool, error) {
	switch v.Type() {
	case quantityType:
		q := v.Interface().(resource.Quantity)
		return jen.Qual(resourcePkg, "MustParse").Call(jen.Lit(q.String())), true, nil
	case intOrStringType:
		return intOrString(v.Interface().(intstr.IntOrString)), true, nil
	case timeType:
		return timeExpr(v.Interface().(metav1.Time)), true, nil
	case durationType:
		return jen.Qual(metav1Pkg, "Duration").Values(jen.Id("Duration").Op(":").Add(duration(v.Interface().(metav1.Duration).Duration))), true, nil
	}
	if v.Kind() == reflect.Interface {
		return nil, true, fmt.Errorf("%s: %w", v.Type(), errUnsupported)
	}
	return nil, false, nil
}

func intOrString(v intstr.IntOrString) jen.Code {
	if v.Type == intstr.String {
		return jen.Qual(intstrPkg, "FromString").Call(jen.Lit(v.StrVal))
	}
	return jen.Qual(intstrPkg, "FromInt32").Call(jen.Lit(int(v.IntVal)))
}

func timeExpr(t metav1.Time) jen.Code {
	u := t.UTC()
	return jen.Qual(metav1Pkg, "Date").Call(
		jen.Lit(u.Year()), jen.Qual("time", u.Month().String()), jen.Lit(u.Day()),
		jen.Lit(u.Hour()), jen.Lit(u.Minute()), jen.Lit(u.Second()), jen.Lit(u.Nanosecond()),
		jen.Qual("time", "UTC"),
	)
}

// duration writes d as a multiple of its largest whole unit.
func duration(d time.Duration) jen.Code {
	units := []struct {
		name string
		d    time.Duration
	}{{"Hour", time.Hour}, {"Minute", time.Minute}, {"Second", time.Second}, {"Millisecond", time.Millisecond}}
	for _, u := range units {
		if d != 0 && d%u.d == 0 {
			return jen.Lit(int(d/u.d)).Op("*").Qual("time", u.name)
		}
	}
	return jen.Qual("time", "Duration").Call(jen.Lit(int(d)))
}

// pointer writes &T{...} for structs and ptr.To(...) for everything else.
func (l *literal) pointer(v reflect.Value) (jen.Code, error) {
	elem := v.Elem()
	if _, special, _ := l.special(elem); !special && elem.Kind() == reflect.Struct {
		c, err := l.composite(elem, true)
		if err != nil {
			return nil, err
		}
		return jen.Op("&").Add(c), nil
	}
	inner, err := l.expr(elem)
	if err != nil {
		return nil, err
	}
	t := elem.Type()
	switch {
	case t.PkgPath() != "" && !isSpecial(t):
		return jen.Qual(ptrPkg, "To").Call(typeExpr(t).Call(inner)), nil
	case isSpecial(t), t.Kind() == reflect.String, t.Kind() == reflect.Bool:
		return jen.Qual(ptrPkg, "To").Call(inner), nil
	}
	return jen.Qual(ptrPkg, "To").Types(typeExpr(t)).Call(inner), nil
}

func isSpecial(t reflect.Type) bool {
	return t == quantityType || t == intOrStringType || t == timeType || t == durationType
}

// composite writes a struct literal, typed or (inside a slice or map)
// with its type elided.
func (l *literal) composite(v reflect.Value, typed bool) (jen.Code, error) {
	var fields []jen.Code
	t := v.Type()
	for i := range t.NumField() {
		f, fv := t.Field(i), v.Field(i)
		if !f.IsExported() || fv.IsZero() {
			continue
		}
		c, err := l.field(t, f, fv)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name, err)
		}
		fields = append(fields, jen.Id(f.Name).Op(":").Add(c))
	}
	body := compact(fields)
	if !typed {
		return body, nil
	}
	return typeExpr(t).Add(body), nil
}

// field writes one struct field, container images through l.image.
func (l *literal) field(owner reflect.Type, f reflect.StructField, v reflect.Value) (jen.Code, error) {
	if f.Name == "Image" && slices.Contains(imageHolders, owner) && l.image != nil {
		l.usedImage = true
		return l.image(v.String()), nil
	}
	return l.expr(v)
}

// items writes each item of a slice as a typed composite literal, for an
// option that takes them as arguments.
func (l *literal) items(slice any) ([]jen.Code, error) {
	v := reflect.ValueOf(slice)
	out := make([]jen.Code, v.Len())
	for i := range v.Len() {
		c, err := l.composite(v.Index(i), true)
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, nil
}

// reflectOf is reflect.ValueOf, for the literal writer's callers.
func reflectOf(v any) reflect.Value { return reflect.ValueOf(v) }

// slice writes []T{...}, struct elements with their type elided.
func (l *literal) slice(v reflect.Value) (jen.Code, error) {
	if v.Type().Elem().Kind() == reflect.Uint8 {
		return bytesLit(v.Bytes()), nil
	}
	items := make([]jen.Code, 0, v.Len())
	for i := range v.Len() {
		c, err := l.element(v.Index(i))
		if err != nil {
			return nil, fmt.Errorf("[%d]: %w", i, err)
		}
		items = append(items, c)
	}
	return typeExpr(v.Type()).Add(compact(items)), nil
}

// element writes a slice element or map value, eliding the type of a
// struct or pointer to struct as Go allows.
func (l *literal) element(v reflect.Value) (jen.Code, error) {
	switch {
	case v.Kind() == reflect.Struct && !isSpecial(v.Type()):
		return l.composite(v, false)
	case v.Kind() == reflect.Pointer && v.Elem().Kind() == reflect.Struct && !isSpecial(v.Type().Elem()):
		return l.composite(v.Elem(), false)
	}
	return l.expr(v)
}

// mapping writes map[K]V{...} in sorted key order.
func (l *literal) mapping(v reflect.Value) (jen.Code, error) {
	keys := v.MapKeys()
	slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
	items := make([]jen.Code, 0, len(keys))
	for _, k := range keys {
		kc, err := l.expr(k)
		if err != nil {
			return nil, err
		}
		vc, err := l.element(v.MapIndex(k))
		if err != nil {
			return nil, fmt.Errorf("[%v]: %w", k, err)
		}
		items = append(items, jen.Add(kc).Op(":").Add(vc))
	}
	return typeExpr(v.Type()).Add(compact(items)), nil
}

// typeExpr writes the Go type t, qualified by its package.
func typeExpr(t reflect.Type) *jen.Statement {
	switch {
	case t.Name() != "" && t.PkgPath() != "":
		return jen.Qual(t.PkgPath(), t.Name())
	case t.Name() != "":
		return jen.Id(t.Name())
	case t.Kind() == reflect.Slice:
		return jen.Index().Add(typeExpr(t.Elem()))
	case t.Kind() == reflect.Map:
		return jen.Map(typeExpr(t.Key())).Add(typeExpr(t.Elem()))
	case t.Kind() == reflect.Pointer:
		return jen.Op("*").Add(typeExpr(t.Elem()))
	}
	return jen.Id(t.String())
}

// block writes {a, b} one item a line, or {} when empty.
func block(items []jen.Code) *jen.Statement {
	if len(items) == 0 {
		return jen.Values()
	}
	return jen.Custom(jen.Options{Open: "{", Close: "}", Separator: ",", Multi: true}, items...)
}

// compact writes {a, b} on one line when the items are few, short and
// single-line, and one item a line otherwise.
func compact(items []jen.Code) *jen.Statement {
	if len(items) <= 3 && short(items, 72) {
		return jen.Values(items...)
	}
	return block(items)
}

// short reports whether the items render on one line within width.
func short(items []jen.Code, width int) bool {
	var buf bytes.Buffer
	if err := jen.Id("_").Op("=").Id("T").Values(items...).Render(&buf); err != nil {
		return false
	}
	line := strings.TrimSpace(buf.String())
	return !strings.Contains(line, "\n") && len(line)-len("_ = T") <= width
}

// str writes a string literal: a raw string for readable multi-line text,
// a quoted one otherwise.
func str(s string) jen.Code {
	if strings.Contains(s, "\n") && rawable(s) {
		return jen.Op("`" + s + "`")
	}
	return jen.Lit(s)
}

// rawable reports whether s can be a raw string literal unchanged.
func rawable(s string) bool {
	if !utf8.ValidString(s) || strings.ContainsAny(s, "`\r\ufeff") {
		return false
	}
	for _, r := range s {
		if r != '\n' && r != '\t' && !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// bytesLit writes []byte("text") for printable text, hex bytes otherwise.
func bytesLit(b []byte) jen.Code {
	if utf8.Valid(b) && rawable(string(b)) {
		return jen.Index().Byte().Call(str(string(b)))
	}
	items := make([]jen.Code, len(b))
	for i, c := range b {
		items[i] = jen.Op(fmt.Sprintf("0x%02x", c))
	}
	return jen.Index().Byte().Values(items...)
}
