package plan

import (
	"errors"
	"fmt"
	"slices"

	"github.com/pynenc/piceli/internal/object"
)

// checkNamespaces refuses every resolved object in a namespace the release
// may not write to: neither the target namespace nor one of
// Input.Namespaces. Cluster-scoped objects are in no namespace.
func (m *maker) checkNamespaces() error {
	var errs []error
	for i, o := range m.in.Objects {
		ns := o.Object.GetNamespace()
		if m.res[i].Namespaced && !m.allowed(ns) {
			errs = append(errs, fmt.Errorf("plan %s (declared by %s): %w: namespace %q is neither the target namespace %q nor in target.namespaces; add it there to let the release write to it",
				object.RefOf(o.Object), o.Origin, ErrNotAllowed, ns, m.in.Namespace))
		}
	}
	return errors.Join(errs...)
}

// allowed reports whether the release may write to namespace ns.
func (m *maker) allowed(ns string) bool {
	return ns == m.in.Namespace || slices.Contains(m.in.Namespaces, ns)
}

// written returns the namespaces steps write to, sorted.
func written(steps []Step) []string {
	var out []string
	for _, s := range steps {
		if ns := s.Ref.Namespace; ns != "" && !slices.Contains(out, ns) {
			out = append(out, ns)
		}
	}
	slices.Sort(out)
	return out
}
