package importgen

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"

	"github.com/dave/jennifer/jen"
)

// shared is a value several builder calls of one function may use: a
// label map or an image. Used twice or more in a function, it becomes a
// variable there.
type shared struct {
	key  string
	name string // its variable, once it needs one
	// helper values (large k8s.io/api values) are shared across
	// functions through a function of infra.go returning them, named fn;
	// typ is their Go type.
	helper bool
	fn     string
	typ    jen.Code
	hint   string          // the variable's name, before numbering
	code   func() jen.Code // the expression
	uses   map[string]int  // by function (scope)
	ident  map[string]string
}

// values are the shared values of one Generate call, in order of first
// sight.
type values struct {
	byKey map[string]*shared
	order []*shared
}

// get returns the shared value of key, making it on first sight.
func (vs *values) get(key, hint string, code func() jen.Code) *shared {
	if vs.byKey == nil {
		vs.byKey = map[string]*shared{}
	}
	if s := vs.byKey[key]; s != nil {
		return s
	}
	s := &shared{key: key, hint: hint, code: code, uses: map[string]int{}, ident: map[string]string{}}
	vs.byKey[key] = s
	vs.order = append(vs.order, s)
	return s
}

// labelMap returns the shared value of a label map; hint names its
// variable.
func (g *gen) labelMap(m map[string]string, hint string) *shared {
	data, _ := json.Marshal(m)
	return g.values.get("labels:"+string(data), hint, func() jen.Code { return stringMap(m) })
}

// image returns the shared value of an image reference.
func (g *gen) image(ref string) *shared {
	return g.values.get("image:"+ref, g.images.name(ref), func() jen.Code { return g.images.ref(ref) })
}

// helperValue returns the shared value of a large k8s.io/api value (a
// security context, an affinity) an option takes; hint names the function
// that returns it when several calls share it.
func (g *gen) helperValue(v any, hint string) (*shared, bool) {
	l := &literal{}
	code, err := l.expr(reflectOf(v))
	if err != nil {
		return nil, false
	}
	data, _ := json.Marshal(v)
	s := g.values.get(hint+":"+string(data), hint, func() jen.Code { return code })
	s.helper, s.typ = true, typeExpr(reflectOf(v).Type())
	return s, true
}

// helpers names a function for each helper value two or more builder
// calls use and returns the functions.
func (g *gen) helpers() []jen.Code {
	counts := map[*shared]int{}
	for _, d := range g.decls {
		if d.form == Builder {
			for _, s := range d.built.uses {
				counts[s]++
			}
		}
	}
	var out []jen.Code
	for _, s := range g.values.order {
		if !s.helper || counts[s] < 2 {
			continue
		}
		s.fn = g.ids.take(s.hint)
		doc := commentf("%s returns the "+helperWhat[s.hint]+".", s.fn, strconv.Itoa(counts[s]))
		out = append(out, jen.Comment(doc).Line().Func().Id(s.fn).Params().Add(s.typ).Block(jen.Return(s.code())).Line())
	}
	return out
}

// helperWhat describes what a helper function returns.
var helperWhat = map[string]string{
	"containerSecurity": "security context %s containers share",
	"podSecurity":       "pod security context %s workloads share",
	"affinity":          "affinity %s workloads share",
}

// valueRef writes a shared value: its variable in the function being
// written, or the expression.
func (g *gen) valueRef(s *shared) jen.Code {
	if s.fn != "" {
		return jen.Id(s.fn).Call()
	}
	if id := s.ident[g.scope]; id != "" {
		return jen.Id(id)
	}
	return s.code()
}

// stringMap writes map[string]string{...} in key order, or nil.
func stringMap(m map[string]string) jen.Code {
	if m == nil {
		return jen.Nil()
	}
	var items []jen.Code
	for _, k := range slices.Sorted(maps.Keys(m)) {
		items = append(items, jen.Lit(k).Op(":").Add(str(m[k])))
	}
	return jen.Map(jen.String()).String().Add(compact(items))
}
