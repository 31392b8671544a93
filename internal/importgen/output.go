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

	"github.com/pynenc/piceli/internal/builtin"
)

// output writes the module's files.
func (g *gen) output() (*Output, error) {
	g.ids.reserve(slices.Collect(maps.Values(apiAliases()))...)
	comps := g.assignComponents()
	g.nameHandles()
	g.nameComponents(comps)
	funcs, err := g.literalFuncs()
	if err != nil {
		return nil, err
	}
	yamlFiles, err := g.yamlFiles()
	if err != nil {
		return nil, err
	}
	out := &Output{Files: map[string][]byte{}}
	if err := g.goFiles(out, comps, funcs, yamlFiles); err != nil {
		return nil, err
	}
	for _, d := range g.decls {
		out.Forms, out.Reasons = append(out.Forms, d.form), append(out.Reasons, d.reasonFor())
	}
	out.Images = g.images.used
	for p, data := range yamlFiles.files {
		out.Files[p] = data
	}
	out.Files["release.toml"] = g.releaseTOML()
	out.Files["go.mod"] = g.goMod()
	out.Files[".gitignore"] = []byte(".piceli-release/\n")
	return out, nil
}

// reasonFor says why d is not a builder call ("" when it is).
func (d *decl) reasonFor() string {
	switch {
	case d.form == Builder:
		return ""
	case d.typed == nil:
		return "its kind has no k8s.io/api type"
	case d.max != "" && !d.max.allows(Builder):
		return "its builder call did not render it exactly"
	case d.reason != "":
		return d.reason
	case !slices.Contains(builderOrder, d.ref.Kind):
		return "no builder makes a " + d.ref.Kind
	case d.ref.Namespace != "":
		return "it lives in namespace " + d.ref.Namespace + ", not the target's"
	}
	return "no builder says it"
}

// handleSuffix distinguishes a handle whose plain name another one took.
var handleSuffix = map[string]string{
	"Deployment": "Deployment", "StatefulSet": "Set", "DaemonSet": "DaemonSet", "Job": "Job", "CronJob": "CronJob", "Service": "Service", "ConfigMap": "Config", "Secret": "Secret", "ServiceAccount": "Account",
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

// nameComponents names each component's function and file.
func (g *gen) nameComponents(comps []*component) {
	files := map[string]bool{"infra.go": true}
	for _, d := range g.decls {
		if d.form == Literal {
			files[strings.ToLower(d.ref.Kind)+".go"] = true
		}
	}
	for _, c := range comps {
		c.fn = g.ids.take("add" + pascal(c.name))
		c.file = c.name + ".go"
		for i := 2; files[c.file]; i++ {
			c.file = fmt.Sprintf("%s-%d.go", c.name, i)
		}
		files[c.file] = true
	}
}

// statements turns rendered calls into statements, assigning each call
// others refer to to its variable.
func statements(calls []*decl, codes []jen.Code) []jen.Code {
	stmts := make([]jen.Code, len(calls))
	for i, d := range calls {
		stmts[i] = codes[i]
		if h := d.built.handle; h != nil && h.used {
			stmts[i] = jen.Id(h.ident).Op(":=").Add(codes[i])
		}
	}
	return stmts
}

// hoist gives the shared values used twice or more in scope a variable
// there and returns their declarations, in order of first use.
func (g *gen) hoist(scope string, calls []*decl) []jen.Code {
	counts := map[*shared]int{}
	var order []*shared
	for _, d := range calls {
		for _, s := range d.built.uses {
			if counts[s] == 0 {
				order = append(order, s)
			}
			counts[s]++
		}
	}
	var decls []jen.Code
	for _, s := range order {
		if counts[s] < 2 || s.helper || s.key == "labels:null" {
			continue
		}
		if s.name == "" {
			s.name = g.ids.take(camel(s.hint, "value"), camel(s.hint, "value")+"Value")
		}
		decls = append(decls, jen.Id(s.name).Op(":=").Add(s.code()))
		s.ident[scope] = s.name
	}
	return decls
}

// literalFunc is the function that returns one literal object.
type literalFunc struct {
	d          *decl
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
	return literalFunc{d: d, name: name, file: strings.ToLower(kind) + ".go", call: jen.Id(name).Call(args...), code: code}, nil
}

// withoutTypeMeta returns a copy of obj without apiVersion and kind,
// which app.Objects takes from client-go's scheme.
func withoutTypeMeta(obj runtime.Object) reflect.Value {
	v := reflect.ValueOf(obj.DeepCopyObject())
	v.Elem().FieldByName("TypeMeta").SetZero()
	return v
}

// literalCalls writes a.Objects(...) of the literal functions of a scope,
// and a.Object(f(), app.Zero(...)) for a literal with explicit zero values.
func literalCalls(funcs []literalFunc) []jen.Code {
	var plain, out []jen.Code
	for _, f := range funcs {
		zeros := explicitZeros(f.d.obj.Object, reflect.TypeOf(f.d.typed).Elem())
		if len(zeros) == 0 {
			plain = append(plain, f.call)
			continue
		}
		var ps []jen.Code
		for _, z := range zeros {
			ps = append(ps, jen.Lit(z))
		}
		out = append(out, jen.Id("a").Dot("Object").Call(f.call, appCallLong("Zero", ps...)))
	}
	if len(plain) > 0 {
		out = append([]jen.Code{jen.Id("a").Dot("Objects").Custom(jen.Options{Open: "(", Close: ")", Separator: ",", Multi: true}, plain...)}, out...)
	}
	return out
}

// goFiles writes infra.go with Build, one file per component and one file
// per kind of the other literals.
func (g *gen) goFiles(out *Output, comps []*component, funcs []literalFunc, yamls yamlSet) error {
	pkg := packageName(g.in.App)
	files := map[string]*jen.File{}
	var names []string
	file := func(name string) *jen.File {
		if files[name] == nil {
			files[name], names = newFile(pkg), append(names, name)
		}
		return files[name]
	}
	infra := file("infra.go")
	for _, line := range []string{
		commentf("Package %s describes the %s app for Piceli; piceli import wrote it", pkg, g.in.App),
		commentf("from %s. It is yours to edit: \"piceli render --spec", g.in.Source),
		`release.toml" shows the manifests it makes.`,
	} {
		infra.PackageComment(line)
	}
	byScope := map[string][]literalFunc{}
	for _, f := range funcs {
		byScope[f.d.scope] = append(byScope[f.d.scope], f)
	}
	for _, h := range g.helpers() {
		infra.Add(h)
	}
	bodies := g.renderScopes(comps)
	for _, c := range comps {
		f := file(c.file)
		f.Add(g.componentFunc(c, bodies[c.name], literalCalls(byScope[c.name]))).Line()
		for _, lf := range byScope[c.name] {
			f.Add(lf.code).Line()
		}
	}
	infra.Add(g.build(bodies[""], literalCalls(byScope[""]), yamls))
	for _, lf := range byScope[""] {
		file(lf.file).Add(lf.code).Line()
	}
	for _, n := range names {
		if err := renderFile(out, n, files[n]); err != nil {
			return err
		}
	}
	return nil
}

// renderScopes renders the statements of Build and of every component:
// every call first (so that each knows whether others refer to it), then
// the statements.
func (g *gen) renderScopes(comps []*component) map[string][]jen.Code {
	type rendered struct {
		hoisted []jen.Code
		calls   []*decl
		codes   []jen.Code
	}
	scopes := map[string]*rendered{}
	for _, scope := range append([]string{""}, componentNames(comps)...) {
		var decls []*decl
		for _, d := range g.decls {
			if d.scope == scope {
				decls = append(decls, d)
			}
		}
		g.scope = scope
		calls := g.scopeCalls(scope, decls)
		r := &rendered{hoisted: g.hoist(scope, calls)}
		r.calls, r.codes = calls, make([]jen.Code, len(calls))
		for i, d := range calls {
			r.codes[i] = d.built.code()
		}
		scopes[scope] = r
	}
	g.scope = ""
	out := map[string][]jen.Code{}
	for scope, r := range scopes {
		out[scope] = append(r.hoisted, statements(r.calls, r.codes)...)
	}
	return out
}

// scopeCalls returns the builder calls of a scope in the order they are
// written: a component's in builder order, Build's in g.items' order.
func (g *gen) scopeCalls(scope string, decls []*decl) []*decl {
	if scope != "" {
		calls, _ := g.scopeCallsOrdered(decls)
		return calls
	}
	var calls []*decl
	for _, it := range g.items {
		if it.d != nil {
			calls = append(calls, it.d)
		}
	}
	return calls
}

// scopeCallsOrdered returns decls' builder calls in builder order.
func (g *gen) scopeCallsOrdered(decls []*decl) ([]*decl, int) {
	var calls []*decl
	for _, kind := range slices.Insert(slices.Clone(builderOrder), 2, "Secret") {
		for _, d := range decls {
			if d.form == Builder && d.ref.Kind == kind {
				calls = append(calls, d)
			}
		}
	}
	return calls, len(calls)
}

func componentNames(comps []*component) []string {
	out := make([]string, len(comps))
	for i, c := range comps {
		out[i] = c.name
	}
	return out
}

// componentFunc writes a component's function: its builder calls, its
// literals, and the handles others use as results.
func (g *gen) componentFunc(c *component, stmts, literals []jen.Code) jen.Code {
	params := []jen.Code{jen.Id("a").Op("*").Qual(appPkg, "App"), jen.Id("ctx").Op("*").Qual(appPkg, "Context")}
	for _, h := range c.params {
		params = append(params, jen.Id(h.ident).Add(handleType(h)))
	}
	var results, returned []jen.Code
	for _, h := range c.returns {
		results, returned = append(results, handleType(h)), append(returned, jen.Id(h.ident))
	}
	body := append(stmts, literals...)
	if len(returned) > 0 {
		body = append(body, jen.Return(returned...))
	}
	var kinds []string
	for _, d := range c.decls {
		kinds = append(kinds, d.ref.Kind+" "+d.ref.Name)
	}
	doc := commentf("%s declares the %s component: %s.", c.fn, c.name, strings.Join(kinds, ", "))
	return jen.Comment(doc).Line().Func().Id(c.fn).Params(params...).Params(results...).Block(body...)
}

// handleType is the Go type of a handle's variable.
func handleType(h *handle) jen.Code {
	t := map[string]string{"Service": "Service", "ConfigMap": "ConfigMap", "Secret": "Secret", "ServiceAccount": "ServiceAccount", "Role": "Role", "PersistentVolumeClaim": "Claim"}[h.kind]
	if t == "" {
		t = "Workload"
	}
	return jen.Op("*").Qual(appPkg, t)
}

// build writes the Build function: its builder calls and component calls
// in order, then its literals and YAML files.
func (g *gen) build(stmts, literals []jen.Code, yamls yamlSet) jen.Code {
	body := []jen.Code{jen.Id("a").Op(":=").Qual(appPkg, "New").Call(jen.Lit(g.in.App))}
	body = append(body, g.withComponentCalls(stmts)...)
	if len(literals) > 0 {
		body = append(body, jen.Line().Comment("Objects the builders cannot say exactly, as k8s.io/api literals."))
		body = append(body, literals...)
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

// withComponentCalls puts the component calls among Build's statements
// in g.items' order; stmts starts with the hoisted values, then one
// statement per builder call item.
func (g *gen) withComponentCalls(stmts []jen.Code) []jen.Code {
	calls := 0
	for _, it := range g.items {
		if it.d != nil {
			calls++
		}
	}
	hoisted := len(stmts) - calls
	out := append([]jen.Code(nil), stmts[:hoisted]...)
	next := hoisted
	for _, it := range g.items {
		if it.d != nil {
			out = append(out, stmts[next])
			next++
			continue
		}
		out = append(out, g.componentCall(it.c))
	}
	return out
}

// componentCall writes the call of a component's function in Build.
func (g *gen) componentCall(c *component) jen.Code {
	args := []jen.Code{jen.Id("a"), jen.Id("ctx")}
	for _, h := range c.params {
		args = append(args, jen.Id(h.ident))
	}
	call := jen.Id(c.fn).Call(args...)
	if len(c.returns) == 0 {
		return call
	}
	var ids []jen.Code
	for _, h := range c.returns {
		ids = append(ids, jen.Id(h.ident))
	}
	return jen.List(ids...).Op(":=").Add(call)
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
	for _, t := range builtin.Scheme().AllKnownTypes() {
		p := t.PkgPath()
		if rest, ok := strings.CutPrefix(p, "k8s.io/api/"); ok {
			aliases[p] = strings.ReplaceAll(strings.ReplaceAll(rest, "/", ""), ".", "")
		}
	}
	return aliases
}
