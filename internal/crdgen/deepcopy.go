package crdgen

import (
	"fmt"
	"strings"
)

// writeDeepCopy writes DeepCopyInto and DeepCopy of a struct: after a
// shallow copy, every pointer, slice, map and raw JSON value is copied
// again, so the copy shares no memory with the original.
func writeDeepCopy(b *strings.Builder, t *goType, kind bool) {
	fmt.Fprintf(b, "// DeepCopyInto copies in into out, sharing no memory with in.\nfunc (in *%s) DeepCopyInto(out *%s) {\n\t*out = *in\n", t.name, t.name)
	if kind {
		b.WriteString("\tin.ObjectMeta.DeepCopyInto(&out.ObjectMeta)\n")
	}
	for _, f := range t.fields {
		src, dst := "in."+f.name, "out."+f.name
		if f.pointer {
			copyPointer(b, dst, src, f.typ)
			continue
		}
		copyValue(b, dst, src, f.typ, 0)
	}
	b.WriteString("}\n\n")
	fmt.Fprintf(b, "// DeepCopy returns a copy of in sharing no memory with it, or nil.\nfunc (in *%s) DeepCopy() *%s {\n", t.name, t.name)
	fmt.Fprintf(b, "\tif in == nil {\n\t\treturn nil\n\t}\n\tout := new(%s)\n\tin.DeepCopyInto(out)\n\treturn out\n}\n\n", t.name)
}

// copyPointer makes dst, a shallow copy of pointer src, point to a copy.
func copyPointer(b *strings.Builder, dst, src string, t *typeRef) {
	if t.kind == refStruct {
		fmt.Fprintf(b, "\t%s = %s.DeepCopy()\n", dst, src)
		return
	}
	fmt.Fprintf(b, "\tif %s != nil {\n\t\tv := *%s\n\t\t%s = &v\n\t}\n", src, src, dst)
}

// copyValue writes statements that turn dst, a shallow copy of src, into
// a deep one. depth numbers the loop variables of nested slices and maps.
func copyValue(b *strings.Builder, dst, src string, t *typeRef, depth int) {
	switch t.kind {
	case refStruct:
		fmt.Fprintf(b, "\t%s.DeepCopyInto(&%s)\n", src, dst)
	case refRaw:
		fmt.Fprintf(b, "\tif %s != nil {\n\t\t%s = make(json.RawMessage, len(%s))\n\t\tcopy(%s, %s)\n\t}\n", src, dst, src, dst, src)
	case refSlice:
		fmt.Fprintf(b, "\tif %s != nil {\n\t\t%s = make(%s, len(%s))\n\t\tcopy(%s, %s)\n", src, dst, t.expr(), src, dst, src)
		if deep(t.elem) {
			i := fmt.Sprintf("i%d", depth)
			fmt.Fprintf(b, "\t\tfor %s := range %s {\n", i, src)
			copyValue(b, dst+"["+i+"]", src+"["+i+"]", t.elem, depth+1)
			b.WriteString("\t\t}\n")
		}
		b.WriteString("\t}\n")
	case refMap:
		k, v := fmt.Sprintf("k%d", depth), fmt.Sprintf("v%d", depth)
		fmt.Fprintf(b, "\tif %s != nil {\n\t\t%s = make(%s, len(%s))\n\t\tfor %s, %s := range %s {\n", src, dst, t.expr(), src, k, v, src)
		if deep(t.elem) {
			c := fmt.Sprintf("c%d", depth)
			fmt.Fprintf(b, "\t\t\t%s := %s\n", c, v)
			copyValue(b, c, v, t.elem, depth+1)
			v = c
		}
		fmt.Fprintf(b, "\t\t\t%s[%s] = %s\n\t\t}\n\t}\n", dst, k, v)
	}
}

// deep reports whether a value of t holds memory a shallow copy shares.
func deep(t *typeRef) bool {
	switch t.kind {
	case refStruct, refRaw, refSlice, refMap:
		return true
	}
	return false
}
