package spec

import (
	"fmt"
	"maps"
	"reflect"
	"slices"

	"github.com/BurntSushi/toml"
)

// layout is the shape release.toml must have: the raw tables as typed Go
// values, which typeErrors compares with the decoded document.
type layout struct {
	Target    rawTarget           `toml:"target"`
	Release   rawRelease          `toml:"release"`
	Images    map[string]rawImage `toml:"images"`
	Values    map[string]string   `toml:"values"`
	Checks    []rawCheck          `toml:"checks"`
	Deploy    rawDeploy           `toml:"deploy"`
	Telemetry rawTelemetry        `toml:"telemetry"`
}

// typeErrors records a wrong-type error for every key of src whose TOML
// type is not what release.toml wants there, and reports whether there was
// any, in line order. The decoder stops at the first wrong type of a table;
// this walk does not. Keys release.toml does not know are left to unknownKeys. src has
// passed the TOML parser.
func (p *parser) typeErrors(src string) bool {
	var doc map[string]any
	if _, err := toml.Decode(src, &doc); err != nil {
		return false // the decode into the raw tables reports it
	}
	before := len(p.errs.Errs)
	p.checkType("", doc, reflect.TypeFor[layout]())
	slices.SortStableFunc(p.errs.Errs[before:], func(a, b error) int {
		return a.(*Error).Line - b.(*Error).Line
	})
	return len(p.errs.Errs) > before
}

// checkType records where v, found at key, does not have the type t wants.
func (p *parser) checkType(key string, v any, t reflect.Type) {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == reflect.TypeFor[rawImage]() {
		return // a reference or a { build = ... } table: images checks it
	}
	if want := tomlKind(t); want != tomlKindOf(v) && !(want == "array of tables" && tomlKindOf(v) == "array") {
		p.errs.Add(key, "wrong type: want %s, have %s", want, tomlKindOf(v))
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		p.checkFields(key, v.(map[string]any), t)
	case reflect.Map:
		m := v.(map[string]any)
		for _, k := range slices.Sorted(maps.Keys(m)) {
			p.checkType(joinKey(key, k), m[k], t.Elem())
		}
	case reflect.Slice:
		for i, item := range listItems(v) {
			p.checkType(fmt.Sprintf("%s[%d]", key, i), item, t.Elem())
		}
	}
}

// checkFields checks the keys of table m that struct t declares, in the
// order t declares them.
func (p *parser) checkFields(key string, m map[string]any, t reflect.Type) {
	for f := range t.Fields() {
		name := f.Tag.Get("toml")
		if v, ok := m[name]; ok {
			p.checkType(joinKey(key, name), v, f.Type)
		}
	}
}

// listItems returns the elements of an array or array of tables.
func listItems(v any) []any {
	if tables, ok := v.([]map[string]any); ok {
		out := make([]any, len(tables))
		for i, t := range tables {
			out[i] = t
		}
		return out
	}
	return v.([]any)
}

// tomlKind names the TOML type a Go field of type t takes.
func tomlKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int64:
		return "integer"
	case reflect.Struct, reflect.Map:
		return "table"
	case reflect.Slice:
		if e := t.Elem(); e.Kind() == reflect.Struct || e.Kind() == reflect.Pointer {
			return "array of tables"
		}
		return "array"
	}
	return t.String()
}

// tomlKindOf names the TOML type of a value decoded into an any.
func tomlKindOf(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case bool:
		return "boolean"
	case int64:
		return "integer"
	case float64:
		return "float"
	case map[string]any:
		return "table"
	case []map[string]any:
		return "array of tables"
	case []any:
		return "array"
	}
	return "datetime" // time.Time and the toml.Local* types
}
