package importgen

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/dave/jennifer/jen"
	"k8s.io/apimachinery/pkg/runtime"
)

// imageNames gives every container image reference a name for [images]:
// its repository's last path element ("frontend" for
// registry.example/shop/frontend:v1), the tag or a number added when two
// references would share one.
type imageNames struct {
	byRef map[string]string
	taken map[string]bool
	used  map[string]string // name -> reference, for those written as ctx.Image
}

func newImageNames() *imageNames {
	return &imageNames{byRef: map[string]string{}, taken: map[string]bool{}, used: map[string]string{}}
}

// collect names the images of a typed object, in field order.
func (im *imageNames) collect(obj runtime.Object) {
	walkImages(reflect.ValueOf(obj), func(ref string) { im.name(ref) })
}

// name returns ref's name, choosing one on first sight.
func (im *imageNames) name(ref string) string {
	if n, ok := im.byRef[ref]; ok {
		return n
	}
	repo, tag := splitImage(ref)
	base := imageKey(repo[strings.LastIndex(repo, "/")+1:])
	n := base
	if im.taken[n] && tag != "" {
		n = base + "-" + imageKey(tag)
	}
	for i := 2; im.taken[n]; i++ {
		n = fmt.Sprintf("%s-%d", base, i)
	}
	im.byRef[ref], im.taken[n] = n, true
	return n
}

// ref returns ctx.Image("name") for ref and records its use.
func (im *imageNames) ref(ref string) jen.Code {
	n := im.name(ref)
	im.used[n] = ref
	return jen.Id("ctx").Dot("Image").Call(jen.Lit(n))
}

// splitImage returns an image reference's repository and tag, the digest
// dropped.
func splitImage(ref string) (repo, tag string) {
	repo, _, _ = strings.Cut(ref, "@")
	if i := strings.LastIndex(repo, ":"); i > strings.LastIndex(repo, "/") {
		repo, tag = repo[:i], repo[i+1:]
	}
	return repo, tag
}

// imageKey turns s into lower-case letters, digits and dashes.
func imageKey(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else if b.Len() > 0 && !strings.HasSuffix(b.String(), "-") {
			b.WriteByte('-')
		}
	}
	if k := strings.Trim(b.String(), "-"); k != "" {
		return k
	}
	return "image"
}

// walkImages calls f with every container image in v.
func walkImages(v reflect.Value, f func(string)) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			walkImages(v.Elem(), f)
		}
	case reflect.Struct:
		if slices.Contains(imageHolders, v.Type()) && v.FieldByName("Image").String() != "" {
			f(v.FieldByName("Image").String())
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				walkImages(v.Field(i), f)
			}
		}
	case reflect.Slice:
		for i := range v.Len() {
			walkImages(v.Index(i), f)
		}
	}
}
