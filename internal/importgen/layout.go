package importgen

import (
	"cmp"
	"slices"
	"strings"
)

// component is a workload with the objects that belong to it, written as
// one function in one file.
type component struct {
	name    string // the workload's
	fn      string // its function, addFoo
	file    string // its file, foo.go
	decls   []*decl
	params  []*handle // handles of other scopes it refers to
	returns []*handle // its handles other scopes refer to
}

// assignComponents gives every object a scope: the component of its
// workload, of the one workload that refers to it, or of the workload its
// name starts with; else Build. A component whose handles could not be
// declared in order is dissolved into Build.
func (g *gen) assignComponents() []*component {
	byName := map[string]*component{}
	var comps []*component
	for _, d := range g.decls {
		if d.form == Builder && slices.Contains(workloadKinds, d.ref.Kind) {
			c := &component{name: d.ref.Name}
			byName[c.name], comps = c, append(comps, c)
			d.scope = c.name
		}
	}
	for _, d := range g.decls {
		if d.scope == "" && d.form != File {
			d.scope = g.scopeOf(d, byName)
		}
	}
	for {
		order, dissolve := g.order(comps)
		if dissolve == nil {
			g.items = order
			break
		}
		for _, d := range g.decls {
			if d.scope == dissolve.name {
				d.scope = ""
			}
		}
		comps = slices.DeleteFunc(comps, func(c *component) bool { return c == dissolve })
	}
	for _, c := range comps {
		g.fillComponent(c)
	}
	return comps
}

// scopeOf returns the component an object belongs to, "" for Build.
func (g *gen) scopeOf(d *decl, comps map[string]*component) string {
	if d.form == Builder {
		owners := map[string]bool{}
		for _, h := range d.built.refs {
			if o := g.ownerOf(h); o != "" && slices.Contains(workloadKinds, h.kind) {
				owners[o] = true
			}
		}
		if h := d.built.handle; h != nil {
			for _, u := range g.decls {
				if u.form == Builder && slices.Contains(u.built.refs, h) && slices.Contains(workloadKinds, u.ref.Kind) {
					owners[u.ref.Name] = true
				}
			}
		}
		switch len(owners) {
		case 1:
			for o := range owners {
				return o
			}
		case 0:
		default:
			return ""
		}
	}
	return namePrefix(d.ref.Name, comps)
}

// namePrefix returns the longest component name that name is or starts
// with followed by "-".
func namePrefix(name string, comps map[string]*component) string {
	best := ""
	for c := range comps {
		if (name == c || strings.HasPrefix(name, c+"-")) && len(c) > len(best) {
			best = c
		}
	}
	return best
}

// ownerOf returns the scope of the object whose handle h is.
func (g *gen) ownerOf(h *handle) string {
	for _, d := range g.decls {
		if d.built.handle == h {
			return d.scope
		}
	}
	return ""
}

// item is one statement of Build: a builder call or a component's call.
type item struct {
	d *decl
	c *component
}

// order sorts Build's builder calls and the component calls so that each
// comes after the handles it uses, builder kinds in builderOrder; it
// returns a component to dissolve when there is no such order.
func (g *gen) order(comps []*component) ([]item, *component) {
	var items []item
	for _, d := range g.decls {
		if d.form == Builder && d.scope == "" {
			items = append(items, item{d: d})
		}
	}
	for _, c := range comps {
		items = append(items, item{c: c})
	}
	slices.SortStableFunc(items, func(a, b item) int { return cmp.Compare(g.rank(a), g.rank(b)) })
	return g.topo(items)
}

// rank orders items by the builder order of their kind (a component's is
// its workload's), Secrets after ConfigMaps.
func (g *gen) rank(it item) int {
	kind := ""
	if it.d != nil {
		kind = it.d.ref.Kind
	} else {
		kind = g.rootOf(it.c.name).ref.Kind
	}
	return slices.Index(slices.Insert(slices.Clone(builderOrder), 2, "Secret"), kind)
}

// rootOf returns the workload of a component.
func (g *gen) rootOf(name string) *decl {
	for _, d := range g.decls {
		if d.scope == name && d.ref.Name == name && slices.Contains(workloadKinds, d.ref.Kind) && d.form == Builder {
			return d
		}
	}
	return nil
}

// topo orders items after what they refer to, keeping the given order
// where it can.
func (g *gen) topo(items []item) ([]item, *component) {
	var out []item
	done := map[int]bool{}
	for len(out) < len(items) {
		progress := false
		for i, it := range items {
			if done[i] || !g.ready(it, items, done) {
				continue
			}
			out, done[i], progress = append(out, it), true, true
			break
		}
		if !progress {
			for i, it := range items {
				if !done[i] && it.c != nil {
					return nil, it.c
				}
			}
			return out, nil
		}
	}
	return out, nil
}

// ready reports whether every handle it refers to that another item
// declares is declared by a done item.
func (g *gen) ready(it item, items []item, done map[int]bool) bool {
	for _, h := range g.itemRefs(it) {
		for j, other := range items {
			if !done[j] && g.declares(other, h) && !sameItem(other, it) {
				return false
			}
		}
	}
	return true
}

func sameItem(a, b item) bool { return a.d == b.d && a.c == b.c }

// itemRefs returns the handles an item refers to.
func (g *gen) itemRefs(it item) []*handle {
	if it.d != nil {
		return it.d.built.refs
	}
	var refs []*handle
	for _, d := range g.decls {
		if d.scope == it.c.name && d.form == Builder {
			refs = append(refs, d.built.refs...)
		}
	}
	return refs
}

// declares reports whether an item declares h.
func (g *gen) declares(it item, h *handle) bool {
	if it.d != nil {
		return it.d.built.handle == h
	}
	return g.ownerOf(h) == it.c.name && h != nil
}

// fillComponent lists a component's objects, parameters and results.
func (g *gen) fillComponent(c *component) {
	for _, d := range g.decls {
		if d.scope == c.name {
			c.decls = append(c.decls, d)
		}
	}
	seen := map[*handle]bool{}
	for _, d := range c.decls {
		for _, h := range d.built.refs {
			if g.ownerOf(h) != c.name && !seen[h] {
				seen[h], c.params = true, append(c.params, h)
			}
		}
	}
	for _, d := range g.decls {
		if d.scope == c.name || d.form != Builder {
			continue
		}
		for _, h := range d.built.refs {
			if g.ownerOf(h) == c.name && !slices.Contains(c.returns, h) {
				c.returns = append(c.returns, h)
			}
		}
	}
}
