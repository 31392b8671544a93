package crdgen

import (
	"fmt"
	"strings"
)

// maxDefault bounds how much of a schema default a doc comment quotes.
const maxDefault = 200

// typeDoc is the doc comment of a generated struct: its name, where it is
// in the kind's schema, and the schema's description.
func typeDoc(name string, s *Schema, k *kindSource, key string) []string {
	first := fmt.Sprintf("%s is %s of %s.", name, schemaPath(key), oneLine(k.kind))
	return withDescription(first, s.Description)
}

// withDescription is first followed by the description's lines.
func withDescription(first, description string) []string {
	lines := commentLines(description)
	if len(lines) == 0 {
		return []string{first}
	}
	return append([]string{first, ""}, lines...)
}

// schemaPath turns an error key into the path a reader knows:
// "spec.issuerRef", "spec.rules[].matches[]", "the top level".
func schemaPath(key string) string {
	_, p, _ := strings.Cut(key, "openAPIV3Schema")
	p = strings.NewReplacer(".properties.", ".", ".properties[", "[", ".items", "[]", ".additionalProperties", "{}").Replace(p)
	p = strings.TrimPrefix(p, ".")
	if p == "" {
		return "the top level"
	}
	return oneLine(p)
}

// fieldDoc is a field's doc comment: the description, the server's
// default (which Piceli never writes: the release must not own a field it
// did not declare) and what oneOf or anyOf require.
func fieldDoc(s *Schema) []string {
	if s == nil {
		return nil
	}
	lines := commentLines(s.Description)
	var notes []string
	if len(s.Default) > 0 {
		d := string(s.Default)
		if len(d) > maxDefault {
			d = d[:maxDefault] + "..."
		}
		notes = append(notes, "The API server defaults it to "+oneLine(d)+" when unset; Piceli does not write the default.")
	}
	notes = append(notes, unionNotes(s)...)
	if len(notes) > 0 && len(lines) > 0 {
		lines = append(lines, "")
	}
	return append(lines, notes...)
}

// unionNotes says what oneOf and anyOf ask of an object: in a structural
// schema they only constrain properties declared above, mostly by
// requiring one of them, so the types stay those of the properties and the
// API server checks the union.
func unionNotes(s *Schema) []string {
	var notes []string
	for _, u := range []struct {
		branches []*Schema
		what     string
	}{{s.OneOf, "exactly one"}, {s.AnyOf, "at least one"}} {
		if len(u.branches) == 0 || intOrStringUnion(s) {
			continue
		}
		if names := requiredNames(u.branches); names != "" {
			notes = append(notes, fmt.Sprintf("Set %s of: %s (checked by the API server).", u.what, oneLine(names)))
			continue
		}
		notes = append(notes, fmt.Sprintf("The value must also match %s of %d alternatives of the schema (checked by the API server).", u.what, len(u.branches)))
	}
	return notes
}

// requiredNames lists the properties the branches require, each branch's
// joined by "and", or "" when a branch requires none.
func requiredNames(branches []*Schema) string {
	var alts []string
	for _, b := range branches {
		if b == nil || len(b.Required) == 0 {
			return ""
		}
		alts = append(alts, strings.Join(b.Required, " and "))
	}
	return strings.Join(alts, ", ")
}

// firstLine is ": " and the description's first line, or "".
func firstLine(description string) string {
	lines := commentLines(description)
	if len(lines) == 0 {
		return "."
	}
	return ": " + lines[0]
}

// restLines are the description's lines after the first.
func restLines(description string) []string {
	lines := commentLines(description)
	if len(lines) < 2 {
		return nil
	}
	return lines[1:]
}
