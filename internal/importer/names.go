package importer

import (
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/pynenc/piceli/internal/graph"
	"github.com/pynenc/piceli/internal/object"
)

// name sets the app name: Options.Name, else the app of the objects
// Piceli made, else fallback made a DNS-1123 label.
func (r *run) name(fallback string) error {
	name := r.opts.Name
	if name == "" {
		name = r.piceliApp()
	}
	if name == "" {
		name = dnsLabel(fallback)
	}
	if msgs := validation.IsDNS1123Label(name); len(msgs) > 0 {
		return refusef("import: app name %q: %s; choose a valid app name", name, strings.Join(msgs, "; "))
	}
	r.app = name
	if r.namespace == "" {
		r.namespace = name
	}
	return nil
}

// piceliApp returns the app all objects made by Piceli's builders belong
// to, or "" when there are none or several.
func (r *run) piceliApp() string {
	apps := map[string]bool{}
	for _, s := range r.sources {
		l := s.obj.GetLabels()
		if l[labelManagedBy] == "piceli" && l[labelPartOf] != "" {
			apps[l[labelPartOf]] = true
		}
	}
	if len(apps) != 1 {
		return ""
	}
	return slices.Collect(maps.Keys(apps))[0]
}

// dnsLabel lower-cases s and turns runs of other characters into dashes.
func dnsLabel(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "-"):
			b.WriteByte('-')
		}
	}
	return strings.Trim(b.String(), "-")
}

// chooseNamespace picks the namespace most namespaced objects name (the
// first in order on a tie) as the target, and returns the others named.
// It returns "" when no object names one.
func chooseNamespace(srcs []source) (string, []string) {
	count := map[string]int{}
	for _, s := range srcs {
		if ns := s.obj.GetNamespace(); ns != "" && namespaced(s) {
			count[ns]++
		}
	}
	names := slices.Sorted(maps.Keys(count))
	if len(names) == 0 {
		return "", nil
	}
	target := names[0]
	for _, n := range names[1:] {
		if count[n] > count[target] {
			target = n
		}
	}
	return target, slices.DeleteFunc(names, func(n string) bool { return n == target })
}

// namespaced reports whether a source's kind lives in a namespace, as
// render decides without a cluster (custom resources count as
// namespaced).
func namespaced(s source) bool {
	ref := object.RefOf(s.obj)
	return !graph.KnownClusterScoped(ref.Group, ref.Kind)
}
