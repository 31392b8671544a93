package crdgen

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// maxDepth bounds how deeply schemas nest; real CRDs stay far below it.
const maxDepth = 64

// refKind is what Go type a schema becomes.
type refKind int

const (
	refScalar      refKind = iota // a Go basic type: string, int64, int32, float64, bool
	refStruct                     // a generated struct type
	refEnum                       // a generated string type with constants
	refIntOrString                // intstr.IntOrString
	refRaw                        // json.RawMessage
	refSlice                      // []elem
	refMap                        // map[string]elem
)

// typeRef is the Go type of a value.
type typeRef struct {
	kind refKind
	name string   // refScalar, refStruct, refEnum
	elem *typeRef // refSlice, refMap
}

// expr is the type as Go source.
func (t *typeRef) expr() string {
	switch t.kind {
	case refIntOrString:
		return "intstr.IntOrString"
	case refRaw:
		return "json.RawMessage"
	case refSlice:
		return "[]" + t.elem.expr()
	case refMap:
		return "map[string]" + t.elem.expr()
	}
	return t.name
}

// pointable reports whether an optional value of the type is a pointer:
// only then can "unset" be told from a zero value (false, 0, "", {}).
func (t *typeRef) pointable() bool {
	return t.kind == refScalar || t.kind == refStruct || t.kind == refEnum || t.kind == refIntOrString
}

// uses reports whether the type needs an import: "json" or "intstr".
func (t *typeRef) uses(pkg string) bool {
	switch t.kind {
	case refRaw:
		return pkg == "json"
	case refIntOrString:
		return pkg == "intstr"
	case refSlice, refMap:
		return t.elem.uses(pkg)
	}
	return false
}

// field is one field of a generated struct.
type field struct {
	name    string // Go name
	json    string // the property
	typ     *typeRef
	pointer bool
	option  string // "", "omitempty" or "omitzero"
	doc     []string
}

// goType is one generated named type: a struct, or a string enum.
type goType struct {
	name   string
	doc    []string
	fields []*field
	enum   []string // enum values; set for an enum type
	consts []string // constant names, index-aligned with enum
	isEnum bool
}

// walker turns one kind's schema into types.
type walker struct {
	p     *pkgGen
	k     *kindSource
	types []*goType
}

// ref returns the Go type of schema s at key; name is the name a new
// named type takes.
func (w *walker) ref(s *Schema, name, key string, depth int) (*typeRef, error) {
	if depth > maxDepth {
		return nil, &Error{Origin: w.k.origin, Key: key, Err: fmt.Errorf("nests deeper than %d levels", maxDepth)}
	}
	switch {
	case s == nil:
		return &typeRef{kind: refRaw}, nil
	case s.IntOrString || intOrStringUnion(s):
		return &typeRef{kind: refIntOrString}, nil
	case s.EmbeddedResource, s.PreserveUnknownFields && len(s.Properties) == 0:
		return &typeRef{kind: refRaw}, nil
	}
	switch schemaType(s) {
	case "object":
		return w.objectRef(s, name, key, depth)
	case "array":
		elem, err := w.ref(s.Items, name, key+".items", depth+1)
		if err != nil {
			return nil, err
		}
		return &typeRef{kind: refSlice, elem: elem}, nil
	case "string":
		return w.stringRef(s, name), nil
	case "integer":
		if s.Format == "int32" {
			return &typeRef{kind: refScalar, name: "int32"}, nil
		}
		return &typeRef{kind: refScalar, name: "int64"}, nil
	case "number":
		return &typeRef{kind: refScalar, name: "float64"}, nil
	case "boolean":
		return &typeRef{kind: refScalar, name: "bool"}, nil
	case "":
		return &typeRef{kind: refRaw}, nil
	}
	return nil, &Error{Origin: w.k.origin, Key: key + ".type", Err: fmt.Errorf("%q is not an OpenAPI type", s.Type)}
}

// schemaType is s's type, or the one its properties or items imply.
func schemaType(s *Schema) string {
	switch {
	case s.Type != "":
		return s.Type
	case len(s.Properties) > 0:
		return "object"
	case s.Items != nil:
		return "array"
	}
	return ""
}

// intOrStringUnion reports an untyped schema whose anyOf or oneOf allows
// exactly an integer or a string: int-or-string without the extension.
func intOrStringUnion(s *Schema) bool {
	if s.Type != "" {
		return false
	}
	for _, branches := range [][]*Schema{s.AnyOf, s.OneOf} {
		types := map[string]bool{}
		for _, b := range branches {
			if b != nil {
				types[b.Type] = true
			}
		}
		if len(types) == 2 && types["integer"] && types["string"] {
			return true
		}
	}
	return false
}

// objectRef is a struct for an object with properties, a map for one
// with additionalProperties, and an empty struct otherwise ({} is all
// the API server keeps of it).
func (w *walker) objectRef(s *Schema, name, key string, depth int) (*typeRef, error) {
	if len(s.Properties) == 0 && s.AdditionalProperties != nil && s.AdditionalProperties.Allows {
		elem, err := w.ref(s.AdditionalProperties.Schema, name, key+".additionalProperties", depth+1)
		if err != nil {
			return nil, err
		}
		return &typeRef{kind: refMap, elem: elem}, nil
	}
	t, err := w.structType(s, w.p.ids.take(name), key, depth, methodReserved, false)
	if err != nil {
		return nil, err
	}
	return &typeRef{kind: refStruct, name: t.name}, nil
}

// structType adds the struct type named name for object schema s.
func (w *walker) structType(s *Schema, name, key string, depth int, reserved []string, top bool) (*goType, error) {
	t := &goType{name: name, doc: typeDoc(name, s, w.k, key)}
	w.types = append(w.types, t)
	ids := newIdents(reserved...)
	required := map[string]bool{}
	for _, r := range s.Required {
		required[r] = true
	}
	var errs []error
	for _, prop := range slices.Sorted(maps.Keys(s.Properties)) {
		if top && w.skipTop(prop) {
			continue
		}
		f, err := w.field(prop, s.Properties[prop], name, key+".properties"+keyPart(prop), depth)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		f.name = ids.take(pascal(prop))
		setOptional(f, required[prop], top && prop == "spec")
		t.fields = append(t.fields, f)
	}
	return t, errors.Join(errs...)
}

// skipTop leaves out what a kind's struct holds otherwise (apiVersion,
// kind, metadata) and status when the status subresource is on: the main
// resource never writes it.
func (w *walker) skipTop(prop string) bool {
	switch prop {
	case "apiVersion", "kind", "metadata":
		return true
	case "status":
		return w.k.statusSub
	}
	return false
}

// field makes the field for property prop of the struct named parent.
func (w *walker) field(prop string, s *Schema, parent, key string, depth int) (*field, error) {
	if prop == "-" {
		return nil, &Error{Origin: w.k.origin, Key: key, Err: errors.New(`a property named "-" cannot be a field: k8s.io/apimachinery's converter drops it`)}
	}
	if !validTag(prop) {
		return nil, &Error{Origin: w.k.origin, Key: key, Err: errors.New("a Go struct tag cannot name this property (encoding/json allows letters, digits, spaces and !#$%&()*+-./:;<=>?@[]^_{|}~)")}
	}
	t, err := w.ref(s, parent+pascal(prop), key, depth+1)
	if err != nil {
		return nil, err
	}
	return &field{json: prop, typ: t, doc: fieldDoc(s)}, nil
}

// setOptional makes a required field a value (always written) and an
// optional one a pointer or omitted when empty. A kind's spec is a value
// even when optional, always written: a spec whose fields are all zero may
// still hold a required "" or 0 (omitzero would drop it), and app drops an
// empty spec of a typed object.
func setOptional(f *field, required, spec bool) {
	switch {
	case spec && f.typ.kind == refStruct:
	case required:
	default:
		f.option = "omitempty"
		f.pointer = f.typ.pointable()
	}
}

// stringRef is a string, or an enum type when the schema lists string
// values.
func (w *walker) stringRef(s *Schema, name string) *typeRef {
	values := stringEnum(s.Enum)
	if len(values) == 0 {
		return &typeRef{kind: refScalar, name: "string"}
	}
	t := &goType{name: w.p.ids.take(name), enum: values, isEnum: true}
	t.doc = append([]string{t.name + " is one of the values the schema allows" + firstLine(s.Description)}, restLines(s.Description)...)
	for _, v := range values {
		t.consts = append(t.consts, w.p.ids.take(t.name+constSuffix(v)))
	}
	w.types = append(w.types, t)
	return &typeRef{kind: refEnum, name: t.name}
}

// stringEnum returns the distinct string values of an enum, in order, or
// nil when one of them is not a string.
func stringEnum(enum []json.RawMessage) []string {
	var out []string
	for _, raw := range enum {
		var v string
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil
		}
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// constSuffix names an enum value's constant after the type's name.
func constSuffix(v string) string {
	if !strings.ContainsFunc(v, func(r rune) bool { return r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) }) {
		return "Value"
	}
	return pascal(v)
}

// validTag reports whether encoding/json can name a field prop in a struct
// tag (its isValidTag), so the tag holds it verbatim and no quote,
// backslash, backquote or comma.
func validTag(prop string) bool {
	if prop == "" {
		return false
	}
	for _, c := range prop {
		if !strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c) && !unicode.IsLetter(c) && !unicode.IsDigit(c) {
			return false
		}
	}
	return true
}

// keyPart writes a property in an error's key: ".name" when it is plain,
// else quoted.
func keyPart(prop string) string {
	plain := prop != "" && !strings.ContainsFunc(prop, func(r rune) bool {
		return !(r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) || r == '-' || r == '_')
	})
	if plain {
		return "." + prop
	}
	return "[" + strconv.Quote(prop) + "]"
}
