package importgen

import (
	"maps"
	"slices"

	"github.com/dave/jennifer/jen"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/render"
)

// The labels every builder object carries (app.LabelName, LabelPartOf,
// LabelManagedBy and ManagedBy; this package may not import app).
const (
	labelName      = "app.kubernetes.io/name"
	labelPartOf    = "app.kubernetes.io/part-of"
	labelManagedBy = "app.kubernetes.io/managed-by"
	managedBy      = "piceli"
	// secretKeysAnnotation is app.AnnotationSecretKeys.
	secretKeysAnnotation = render.SecretKeysAnnotation
	// waitAnnotation is app.AnnotationWait; "false" is app.NoWait().
	waitAnnotation = object.WaitAnnotation
)

// builderLabels are the labels a builder gives an object of component.
func (g *gen) builderLabels(component string) map[string]string {
	return map[string]string{labelName: component, labelPartOf: g.in.App, labelManagedBy: managedBy}
}

// selector is the pod selector of component.
func (g *gen) selector(component string) map[string]string {
	return map[string]string{labelName: component, labelPartOf: g.in.App}
}

// takeMeta checks that m is what a builder writes for an object named name
// of component: that name, the builder labels, no namespace, and
// annotations only when the builder takes app.Annotation. It clears what it
// checked and returns the Annotation options, sorted by key.
func (g *gen) takeMeta(m *metav1.ObjectMeta, name, component string, annotations bool) ([]jen.Code, bool) {
	if m.Name != name || !maps.Equal(m.Labels, g.builderLabels(component)) {
		return nil, false
	}
	if len(m.Annotations) > 0 && !annotations {
		return nil, false
	}
	opts := annotationOptions(m.Annotations)
	m.Name, m.Labels, m.Annotations = "", nil, nil
	return opts, m.Namespace == ""
}

// takeTemplateMeta checks a pod or claim template's metadata: the builder
// labels of component and nothing else.
func (g *gen) takeTemplateMeta(m *metav1.ObjectMeta, name, component string) bool {
	if m.Name != name || !maps.Equal(m.Labels, g.builderLabels(component)) {
		return false
	}
	m.Name, m.Labels = "", nil
	return true
}

// annotationOptions writes app.Annotation for each annotation, sorted by
// key, and app.NoWait for the annotation it writes.
func annotationOptions(annotations map[string]string) []jen.Code {
	var opts []jen.Code
	for _, k := range slices.Sorted(maps.Keys(annotations)) {
		if k == waitAnnotation && annotations[k] == "false" {
			opts = append(opts, appCall("NoWait"))
			continue
		}
		opts = append(opts, appCall("Annotation", jen.Lit(k), str(annotations[k])))
	}
	return opts
}

// appCall writes app.name(args...).
func appCall(name string, args ...jen.Code) *jen.Statement {
	return jen.Qual(appPkg, name).Call(args...)
}

// builderCall writes a.method(args...), one argument a line unless they
// are short.
func builderCall(method string, args []jen.Code) jen.Code {
	if len(args) <= 4 && short(args, 70) {
		return jen.Id("a").Dot(method).Call(args...)
	}
	return jen.Id("a").Dot(method).Custom(jen.Options{Open: "(", Close: ")", Separator: ",", Multi: true}, args...)
}
