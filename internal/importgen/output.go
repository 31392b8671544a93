package importgen

import (
	"bytes"
	"fmt"
	"go/format"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/dave/jennifer/jen"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
)

// output writes the module's files.
func (g *gen) output() (*Output, error) {
	g.ids.reserve(slices.Collect(maps.Values(apiAliases()))...)
	g.nameHandles()
	stmts := g.buildStatements()
	funcs, err := g.literalFuncs()
	if err != nil {
		return nil, err
	}
	yamlFiles, err := g.yamlFiles()
	if err != nil {
		return nil, err
	}
	out := &Output{Files: map[string][]byte{}, Images: g.images.used}
	for _, d := range g.decls {
		out.Forms = append(out.Forms, d.form)
	}
	if err := g.goFiles(out, stmts, funcs, yamlFiles); err != nil {
		return nil, err
	}
	for p, data := range yamlFiles.files {
		out.Files[p] = data
	}
	out.Files["release.toml"] = g.releaseTOML()
	out.Files["go.mod"] = g.goMod()
	out.Files[".gitignore"] = []byte(".piceli-release/\n")
	return out, nil
}

// handleSuffix distinguishes a handle whose plain name another one took.
var handleSuffix = map[string]string{
	"Deployment": "Deployment", "StatefulSet": "Set", "Job": "Job", "CronJob": "CronJob", "Service": "Service", "ConfigMap": "Config", "Secret": "Secret", "ServiceAccount": "Account",
	"Role": "Role", "PersistentVolumeClaim": "Claim",
}

// nameHandles gives each handle its variable: workloads first, so that
// they get the plain names.
func (g *gen) nameHandles() {
	order := append(slices.Clone(workloadKinds), "Service", "ConfigMap", "Secret", "ServiceAccount", "Role", "PersistentVolumeClaim")
	for _, kind := range order {
		for _, d := range g.decls {
			if h := d.built.handle; h != nil && h.kind == kind {
				base := camel(h.name, lowerFirst(kind))
				h.ident = g.ids.take(base, base+handleSuffix[kind])
			}
		}
	}
}

// buildStatements renders the builder calls in builderOrder, Secrets
// after ConfigMaps; a call others refer to is assigned to its variable.
func (g *gen) buildStatements() []jen.Code {
	var calls []*decl
	for _, kind := range slices.Insert(slices.Clone(builderOrder), 2, "Secret") {
		for _, d := range g.decls {
			if d.form == Builder && d.ref.Kind == kind {
				calls = append(calls, d)
			}
		}
	}
	codes := make([]jen.Code, len(calls))
	for i, d := range calls {
		codes[i] = d.built.code()
	}
	stmts := make([]jen.Code, len(calls))
	for i, d := range calls {
		stmts[i] = codes[i]
		if h := d.built.handle; h != nil && h.used {
			stmts[i] = jen.Id(h.ident).Op(":=").Add(codes[i])
		}
	}
	return stmts
}

// literalFunc is the function that returns one literal object.
type literalFunc struct {
	name, file string
	call       jen.Code
	code       jen.Code
}

// literalFuncs writes one function per literal object, in input order.
func (g *gen) literalFuncs() ([]literalFunc, error) {
	var out []literalFunc
	for _, d := range g.decls {
		if d.form != Literal {
			continue
		}
		f, err := g.literalFunc(d)
		if err != nil {
			return nil, fmt.Errorf("%s (%s): %w", d.ref, d.src, err)
		}
		out = append(out, f)
	}
	return out, nil
}

func (g *gen) literalFunc(d *decl) (literalFunc, error) {
	l := &literal{image: g.images.ref}
	body, err := l.expr(withoutTypeMeta(d.typed))
	if err != nil {
		return literalFunc{}, err
	}
	kind := d.ref.Kind
	base := camel(d.ref.Name, lowerFirst(kind)) + kind
	name := g.ids.take(base, camel(d.ref.Namespace, "ns")+pascal(d.ref.Name)+kind)
	var params, args []jen.Code
	if l.usedImage {
		params, args = []jen.Code{jen.Id("ctx").Op("*").Qual(appPkg, "Context")}, []jen.Code{jen.Id("ctx")}
	}
	code := jen.Comment(commentf("%s returns %s as it was imported.", name, d.ref)).Line().
		Func().Id(name).Params(params...).Add(typeExpr(reflect.TypeOf(d.typed))).Block(jen.Return(body))
	return literalFunc{name: name, file: strings.ToLower(kind) + ".go", call: jen.Id(name).Call(args...), code: code}, nil
}

// withoutTypeMeta returns a copy of obj without apiVersion and kind,
// which app.Objects takes from client-go's scheme.
func withoutTypeMeta(obj runtime.Object) reflect.Value {
	v := reflect.ValueOf(obj.DeepCopyObject())
	v.Elem().FieldByName("TypeMeta").SetZero()
	return v
}

// goFiles writes infra.go with Build and one file per kind of literals.
func (g *gen) goFiles(out *Output, stmts []jen.Code, funcs []literalFunc, yamls yamlSet) error {
	pkg := packageName(g.in.App)
	infra := newFile(pkg)
	for _, line := range []string{
		commentf("Package %s describes the %s app for Piceli; piceli import wrote it", pkg, g.in.App),
		commentf("from %s. It is yours to edit: \"piceli render --spec", g.in.Source),
		`release.toml" shows the manifests it makes.`,
	} {
		infra.PackageComment(line)
	}
	infra.Add(g.build(stmts, funcs, yamls))
	if err := renderFile(out, "infra.go", infra); err != nil {
		return err
	}
	byFile := map[string]*jen.File{}
	var names []string
	for _, f := range funcs {
		file := byFile[f.file]
		if file == nil {
			file = newFile(pkg)
			byFile[f.file], names = file, append(names, f.file)
		}
		file.Add(f.code).Line()
	}
	for _, n := range names {
		if err := renderFile(out, n, byFile[n]); err != nil {
			return err
		}
	}
	return nil
}

// build writes the Build function.
func (g *gen) build(stmts []jen.Code, funcs []literalFunc, yamls yamlSet) jen.Code {
	body := []jen.Code{jen.Id("a").Op(":=").Qual(appPkg, "New").Call(jen.Lit(g.in.App))}
	body = append(body, stmts...)
	if len(funcs) > 0 {
		var calls []jen.Code
		for _, f := range funcs {
			calls = append(calls, f.call)
		}
		body = append(body, jen.Line().Comment("Objects the builders cannot say exactly, as k8s.io/api literals."),
			jen.Id("a").Dot("Objects").Custom(jen.Options{Open: "(", Close: ")", Separator: ",", Multi: true}, calls...))
	}
	if len(yamls.paths) > 0 {
		var paths []jen.Code
		for _, p := range yamls.paths {
			paths = append(paths, jen.Lit(p))
		}
		body = append(body, jen.Line().Comment("Objects without Go types, as YAML files."),
			jen.Id("a").Dot("File").Custom(jen.Options{Open: "(", Close: ")", Separator: ",", Multi: true}, paths...))
	}
	body = append(body, jen.Return(jen.Id("a").Dot("Composition").Call(jen.Id("ctx"))))
	return jen.Comment("Build declares the imported objects.").Line().
		Func().Id("Build").Params(jen.Id("ctx").Op("*").Qual(appPkg, "Context")).
		Params(jen.Op("*").Qual(appPkg, "Composition"), jen.Error()).Block(body...)
}

// newFile starts a Go file with the usual import aliases.
func newFile(pkg string) *jen.File {
	f := jen.NewFile(pkg)
	for path, alias := range apiAliases() {
		f.ImportAlias(path, alias)
	}
	f.ImportName(appPkg, "app")
	f.ImportName(ptrPkg, "ptr")
	f.ImportName(resourcePkg, "resource")
	f.ImportName(intstrPkg, "intstr")
	return f
}

// renderFile formats f into out.Files[name].
func renderFile(out *Output, name string, f *jen.File) error {
	var buf bytes.Buffer
	if err := f.Render(&buf); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	src, err := format.Source(buf.Bytes())
	if err != nil {
		return fmt.Errorf("format %s: %w", name, err)
	}
	out.Files[name] = src
	return nil
}

// apiAliases maps the k8s.io/api packages (and meta/v1) to the aliases
// people write: appsv1, corev1, metav1.
func apiAliases() map[string]string {
	aliases := map[string]string{metav1Pkg: "metav1"}
	for _, t := range scheme.Scheme.AllKnownTypes() {
		p := t.PkgPath()
		if rest, ok := strings.CutPrefix(p, "k8s.io/api/"); ok {
			aliases[p] = strings.ReplaceAll(strings.ReplaceAll(rest, "/", ""), ".", "")
		}
	}
	return aliases
}
