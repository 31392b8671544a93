package importgen

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/dave/jennifer/jen"
	corev1 "k8s.io/api/core/v1"

	"github.com/pynenc/piceli/internal/object"
)

// gen holds one Generate call's state.
type gen struct {
	in      Input
	decls   []*decl
	handles handles
	images  *imageNames
	ids     *identifiers
	values  values
	// scope is the function being written ("" for Build), for shared
	// values.
	scope string
	// items are Build's statements in order, once components are known.
	items []item
}

func newGen(in Input) *gen {
	return &gen{in: in, handles: handles{}, images: newImageNames(), ids: newIdentifiers()}
}

// decide gives every object its form: secrets and builder calls first, in
// builderOrder, then literals, then files.
func (g *gen) decide() error {
	if err := g.load(); err != nil {
		return err
	}
	if err := g.secrets(); err != nil {
		return err
	}
	g.builders()
	return g.rest()
}

// load converts each object to its Go type, where it has one, and names
// its images.
func (g *gen) load() error {
	for i, o := range g.in.Objects {
		d := &decl{index: i, obj: o.Manifest, ref: object.RefOf(o.Manifest), max: o.Max, noLiteral: o.SkipLiteral, src: o.Origin}
		typed, ok, err := Typed(o.Manifest)
		if err != nil {
			return fmt.Errorf("%s (%s): %w", d.ref, d.src, err)
		}
		if ok {
			d.typed = typed
			g.images.collect(typed)
		}
		g.decls = append(g.decls, d)
	}
	return nil
}

// secrets declares every Secret with keys by source.
func (g *gen) secrets() error {
	for _, d := range g.decls {
		if !object.IsSecretRef(d.ref) || d.typed == nil {
			continue
		}
		b, ok, err := g.secret(d, d.typed.(*corev1.Secret))
		if err != nil {
			return err
		}
		if ok {
			g.use(d, b)
		} else {
			d.reason = "it has no keys, and a Secret is declared by its keys' sources (a literal holds no value)"
		}
	}
	return nil
}

// builders tries the recognizer of each object's kind, kinds in
// builderOrder so that handles exist before their users.
func (g *gen) builders() {
	for _, kind := range builderOrder {
		for _, d := range g.decls {
			if d.ref.Kind != kind || d.form != "" || !d.max.allows(Builder) || d.typed == nil || d.ref.Namespace != "" {
				continue
			}
			r := recognizers[d.obj.GroupVersionKind().Group+"/"+d.obj.GroupVersionKind().Version+"/"+kind]
			if r == nil {
				d.reason = "the builders write " + kind + " in another API version"
				continue
			}
			if b, why := r(g, d); why == "" {
				g.use(d, b)
			} else {
				d.reason = why
			}
		}
	}
}

// use makes b the builder call of d.
func (g *gen) use(d *decl, b built) {
	d.form, d.built = Builder, b
	if b.handle != nil {
		g.handles.add(b.handle)
	}
}

// zeroPaths returns the paths of the explicit zero values of d's
// manifest under prefix.
func (d *decl) zeroPaths(prefix string) []string {
	var out []string
	for _, p := range explicitZeros(d.obj.Object, reflect.TypeOf(d.typed).Elem()) {
		if strings.HasPrefix(p, prefix+".") {
			out = append(out, p)
		}
	}
	return out
}

// rest writes every other object as a literal when its type allows,
// else as a YAML file. A Secret is never written as a file: its values
// would be.
func (g *gen) rest() error {
	for _, d := range g.decls {
		if d.form != "" {
			continue
		}
		if d.typed != nil && !d.noLiteral && d.max.allows(Literal) && g.literalOK(d) {
			d.form = Literal
			continue
		}
		if object.IsSecretRef(d.ref) {
			return fmt.Errorf("%s (%s): a Secret can only be declared by source, and this one cannot", d.ref, d.src)
		}
		d.form = File
	}
	return nil
}

// literalOK reports whether d's object has a Go literal: no raw
// extensions or interfaces in it, and for a Secret no value.
func (g *gen) literalOK(d *decl) bool {
	if s, ok := d.typed.(*corev1.Secret); ok && (len(s.Data) > 0 || len(s.StringData) > 0) {
		return false
	}
	l := &literal{image: func(string) jen.Code { return jen.Null() }}
	_, err := l.expr(reflect.ValueOf(d.typed))
	return err == nil
}
