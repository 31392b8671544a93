package crdgen

import (
	"fmt"
	"go/token"
	"reflect"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// maxIdent bounds the part of a Go identifier made from one input name, so
// a long property name cannot make every type below it long too.
const maxIdent = 64

// pascal turns an input name into an exported Go identifier: ASCII
// letters and digits only, each word's first letter upper-cased
// ("private-key" gives PrivateKey, "x509" X509, "2fa" X2fa), at most
// maxIdent bytes, never empty. Nothing else of the name survives, so no
// input can reach generated code through an identifier.
func pascal(name string) string {
	words := strings.FieldsFunc(name, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	})
	var b strings.Builder
	for _, w := range words {
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	s := b.String()
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		s = "X" + s
	}
	if len(s) > maxIdent {
		s = s[:maxIdent]
	}
	return s
}

// idents hands out identifiers of one scope (a package or a struct's
// fields and methods), each at most once.
type idents struct{ used map[string]bool }

func newIdents(reserved ...string) *idents {
	ids := &idents{used: map[string]bool{}}
	for _, r := range reserved {
		ids.used[r] = true
	}
	return ids
}

// take returns candidate, or candidate numbered from 2 when it is taken.
func (ids *idents) take(candidate string) string {
	c := candidate
	for i := 2; ids.used[c] || token.IsKeyword(c); i++ {
		c = fmt.Sprintf("%s%d", candidate, i)
	}
	ids.used[c] = true
	return c
}

// packageReserved are the package-level names every generated package
// declares itself.
var packageReserved = []string{"Group", "Version", "APIVersion"}

// methodReserved are the methods every generated struct has.
var methodReserved = []string{"DeepCopy", "DeepCopyInto"}

// kindReserved are the names a kind's struct holds or promotes already:
// the embedded TypeMeta and ObjectMeta, their fields and methods, and
// DeepCopyObject. A property of the kind's top level with one of these
// names gets a numbered field, so it neither shadows nor clashes.
var kindReserved = kindNames()

func kindNames() []string {
	names := append([]string{"TypeMeta", "ObjectMeta", "DeepCopyObject"}, methodReserved...)
	for _, t := range []reflect.Type{reflect.TypeFor[metav1.TypeMeta](), reflect.TypeFor[metav1.ObjectMeta]()} {
		for i := range t.NumField() {
			names = append(names, t.Field(i).Name)
		}
		pt := reflect.PointerTo(t)
		for i := range pt.NumMethod() {
			names = append(names, pt.Method(i).Name)
		}
	}
	return names
}

// dirName turns a group or version into a directory name Go accepts in an
// import path: lower-case ASCII letters, digits, '-' and '.', starting and
// ending with a letter or digit, no "..", at most maxIdent bytes; fallback
// when nothing is left.
func dirName(s, fallback string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	d := b.String()
	for strings.Contains(d, "..") {
		d = strings.ReplaceAll(d, "..", ".")
	}
	if len(d) > maxIdent {
		d = d[:maxIdent]
	}
	d = strings.Trim(d, "-.")
	if d == "" {
		return fallback
	}
	return d
}

// packageName turns a version into a package name: its lower-case letters
// and digits, "v" in front when it would start with a digit.
func packageName(version string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(version) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	s := b.String()
	if len(s) > maxIdent {
		s = s[:maxIdent]
	}
	if !validPackage(s) {
		s = "v" + s
	}
	return s
}

// validPackage reports whether s is a lower-case ASCII identifier that is
// no keyword and not one of the package names generated code imports.
func validPackage(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' || token.IsKeyword(s) {
		return false
	}
	switch s {
	case "metav1", "runtime", "intstr", "json":
		return false
	}
	return !strings.ContainsFunc(s, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9') })
}
