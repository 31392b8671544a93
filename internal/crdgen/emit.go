package crdgen

import (
	"fmt"
	"strconv"
	"strings"
)

// kindFile is the Go source of one kind: its struct, constructor and
// DeepCopyObject, then every type below it with its DeepCopy methods.
func (p *pkgGen) kindFile(k *kindGen) string {
	var b strings.Builder
	b.WriteString(p.header([]*kindGen{k}))
	fmt.Fprintf(&b, "package %s\n\n", p.name)
	writeImports(&b, k.types)
	for i, t := range k.types {
		writeDoc(&b, "", t.doc)
		if t.isEnum {
			writeEnum(&b, t)
			continue
		}
		writeStruct(&b, t, i == 0)
		if i == 0 {
			writeKindFuncs(&b, k)
		}
		writeDeepCopy(&b, t, i == 0)
	}
	return b.String()
}

// writeImports imports what the types use; metav1 and runtime always (the
// kind's struct and DeepCopyObject).
func writeImports(b *strings.Builder, types []*goType) {
	uses := func(pkg string) bool {
		for _, t := range types {
			for _, f := range t.fields {
				if f.typ.uses(pkg) {
					return true
				}
			}
		}
		return false
	}
	b.WriteString("import (\n")
	if uses("json") {
		b.WriteString("\t\"encoding/json\"\n\n")
	}
	b.WriteString("\tmetav1 \"k8s.io/apimachinery/pkg/apis/meta/v1\"\n\t\"k8s.io/apimachinery/pkg/runtime\"\n")
	if uses("intstr") {
		b.WriteString("\t\"k8s.io/apimachinery/pkg/util/intstr\"\n")
	}
	b.WriteString(")\n\n")
}

// writeDoc writes lines as a line comment, indented by indent.
func writeDoc(b *strings.Builder, indent string, lines []string) {
	for _, l := range lines {
		if l == "" {
			b.WriteString(indent + "//\n")
			continue
		}
		b.WriteString(indent + "// " + l + "\n")
	}
}

// writeEnum writes a string type and a constant per value, each value
// through strconv.Quote.
func writeEnum(b *strings.Builder, t *goType) {
	fmt.Fprintf(b, "type %s string\n\n", t.name)
	fmt.Fprintf(b, "// The values of %s.\nconst (\n", t.name)
	for i, v := range t.enum {
		fmt.Fprintf(b, "\t%s %s = %s\n", t.consts[i], t.name, strconv.Quote(v))
	}
	b.WriteString(")\n\n")
}

// writeStruct writes a struct; a kind's embeds TypeMeta and ObjectMeta.
func writeStruct(b *strings.Builder, t *goType, kind bool) {
	fmt.Fprintf(b, "type %s struct {\n", t.name)
	if kind {
		b.WriteString("\tmetav1.TypeMeta `json:\",inline\"`\n")
		b.WriteString("\t// Standard object metadata; the release's namespace applies when Namespace is empty.\n")
		b.WriteString("\tmetav1.ObjectMeta `json:\"metadata,omitempty\"`\n")
	}
	for i, f := range t.fields {
		if kind || i > 0 && len(f.doc) > 0 {
			b.WriteString("\n")
		}
		writeDoc(b, "\t", f.doc)
		ptr := ""
		if f.pointer {
			ptr = "*"
		}
		fmt.Fprintf(b, "\t%s %s%s `json:%s`\n", f.name, ptr, f.typ.expr(), strconv.Quote(tagName(f)))
	}
	b.WriteString("}\n\n")
}

// tagName is the json tag's value: the property (checked by validTag, so
// it holds no quote, backslash, backquote or comma, and is not "-") and
// the option.
func tagName(f *field) string {
	if f.option != "" {
		return f.json + "," + f.option
	}
	return f.json
}

// writeKindFuncs writes the constructor and DeepCopyObject.
func writeKindFuncs(b *strings.Builder, k *kindGen) {
	fmt.Fprintf(b, "// %s returns a %s named name with apiVersion and kind set. Set the\n", k.constructor, k.typeName)
	b.WriteString("// other fields, then add it with app.Objects.\n")
	fmt.Fprintf(b, "func %s(name string) *%s {\n", k.constructor, k.typeName)
	fmt.Fprintf(b, "\treturn &%s{\n\t\tTypeMeta: metav1.TypeMeta{APIVersion: APIVersion, Kind: %s},\n", k.typeName, strconv.Quote(k.src.kind))
	b.WriteString("\t\tObjectMeta: metav1.ObjectMeta{Name: name},\n\t}\n}\n\n")
	b.WriteString("// DeepCopyObject returns a deep copy of in as a runtime.Object.\n")
	fmt.Fprintf(b, "func (in *%s) DeepCopyObject() runtime.Object {\n", k.typeName)
	b.WriteString("\tif c := in.DeepCopy(); c != nil {\n\t\treturn c\n\t}\n\treturn nil\n}\n\n")
}
