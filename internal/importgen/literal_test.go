package importgen

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/dave/jennifer/jen"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// renderExpr renders one expression as it appears in a generated file.
func renderExpr(t *testing.T, c jen.Code) string {
	t.Helper()
	var buf bytes.Buffer
	if err := jen.Id("_").Op("=").Add(c).RenderWithFile(&buf, newFile("x")); err != nil {
		t.Fatal(err)
	}
	return strings.TrimPrefix(strings.TrimSpace(buf.String()), "_ = ")
}

func TestLiteralWritesConstructorsForSpecialTypes(t *testing.T) {
	pathType := networkingv1.PathTypePrefix
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"a quantity in canonical form", resource.MustParse("0.5"), `resource.MustParse("500m")`},
		{"a numeric port", intstr.FromInt32(8080), `intstr.FromInt32(8080)`},
		{"a named port", intstr.FromString("http"), `intstr.FromString("http")`},
		{"a pointer to int32 names its type", ptr.To[int32](3), `ptr.To[int32](3)`},
		{"a pointer to bool", ptr.To(false), `ptr.To(false)`},
		{"a pointer to a named string converts", &pathType, `ptr.To(networkingv1.PathType("Prefix"))`},
		{"a pointer to an empty struct keeps it", &corev1.EmptyDirVolumeSource{}, `&corev1.EmptyDirVolumeSource{}`},
		{"multi-line text is a raw string", "a\nb\n", "`a\nb\n`"},
		{"text with a backquote is quoted", "a`\nb", `"a` + "`" + `\nb"`},
		{"bytes that are not text are hex", []byte{0xff, 0x00}, `[]byte{0xff, 0x00}`},
		{"a time in UTC", metav1.Date(2026, time.March, 1, 12, 0, 0, 0, time.UTC), `metav1.Date(2026, time.March, 1, 12, 0, 0, 0, time.UTC)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := &literal{}
			c, err := l.expr(reflect.ValueOf(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if got := renderExpr(t, c); got != tt.want {
				t.Errorf("expr(%v) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}

func TestLiteralLeavesZeroFieldsOutAndImagesToTheContext(t *testing.T) {
	c := corev1.Container{Name: "web", Image: "nginx:1.27", Ports: []corev1.ContainerPort{{ContainerPort: 80}}}
	l := &literal{image: func(ref string) jen.Code { return jen.Id("ctx").Dot("Image").Call(jen.Lit("img:" + ref)) }}
	code, err := l.expr(reflect.ValueOf(c))
	if err != nil {
		t.Fatal(err)
	}
	got := renderExpr(t, code)
	want := `corev1.Container{
	Name:  "web",
	Image: ctx.Image("img:nginx:1.27"),
	Ports: []corev1.ContainerPort{{ContainerPort: 80}},
}`
	if got != want || !l.usedImage {
		t.Errorf("expr(container) = %s (image used %v), want %s", got, l.usedImage, want)
	}
}

func TestLiteralRefusesRawExtensions(t *testing.T) {
	l := &literal{}
	_, err := l.expr(reflect.ValueOf(struct{ Raw runtime.RawExtension }{Raw: runtime.RawExtension{Object: &corev1.Pod{}}}))
	if err == nil {
		t.Fatal("expr(raw extension) succeeded, want errUnsupported")
	}
}
