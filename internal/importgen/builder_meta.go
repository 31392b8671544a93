package importgen

import (
	"fmt"
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

// selector is the builder pod selector of component.
func (g *gen) selector(component string) map[string]string {
	return map[string]string{labelName: component, labelPartOf: g.in.App}
}

// metaRules says what a builder takes of an object's metadata.
type metaRules struct {
	labels      bool // app.Labels: labels other than the builder's
	annotations bool // app.Annotation and app.NoWait
}

// takeMeta claims the metadata of an object named name of component as a
// builder writes it: no namespace (the target's), the builder labels or
// (rules.labels) app.Labels, and (rules.annotations) app.Annotation for
// each annotation. It adds those options to o (labels first) and clears
// what it claimed, or says why the builder cannot write the metadata.
// Other metadata (finalizers, owners, ...) is left for an Edit.
func (g *gen) takeMeta(m *metav1.ObjectMeta, component string, o *options, rules metaRules) string {
	switch {
	case m.Namespace != "":
		return fmt.Sprintf("it lives in namespace %q, not the target's", m.Namespace)
	case !maps.Equal(m.Labels, g.builderLabels(component)) && !rules.labels:
		return "its labels are not the builder's and this builder takes no app.Labels"
	case len(m.Annotations) > 0 && !rules.annotations:
		return "it has annotations and this builder takes no app.Annotation"
	}
	if !maps.Equal(m.Labels, g.builderLabels(component)) {
		o.addOpt(g.labelsOption("Labels", m.Labels, component+"Labels", o))
	}
	o.add(annotationOptions(m.Annotations)...)
	m.Name, m.Labels, m.Annotations = "", nil, nil
	return ""
}

// labelsOption writes app.<method>(labels), the map a shared value.
func (g *gen) labelsOption(method string, labels map[string]string, hint string, o *options) option {
	v := o.value(g, g.labelMap(labels, hint))
	return func() jen.Code { return appCall(method, v()) }
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

// appCallLong writes app.name(args...), one argument a line when they do
// not fit on one.
func appCallLong(name string, args ...jen.Code) *jen.Statement {
	if short(args, 80) {
		return appCall(name, args...)
	}
	return jen.Qual(appPkg, name).Custom(jen.Options{Open: "(", Close: ")", Separator: ",", Multi: true}, args...)
}

// builderCall writes a.method(args...), one argument a line unless they
// are short.
func builderCall(method string, args []jen.Code) jen.Code {
	if len(args) <= 4 && short(args, 70) {
		return jen.Id("a").Dot(method).Call(args...)
	}
	return jen.Id("a").Dot(method).Custom(jen.Options{Open: "(", Close: ")", Separator: ",", Multi: true}, args...)
}
