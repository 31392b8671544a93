package importer

import (
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// appKinds are the kinds a live import reads unless --all-kinds: what an
// app is made of, keyed "group/Kind".
var appKinds = map[string]bool{
	"/ConfigMap": true, "/Secret": true, "/Service": true, "/ServiceAccount": true,
	"/PersistentVolumeClaim": true, "/Pod": true, "/ResourceQuota": true, "/LimitRange": true,
	"apps/Deployment": true, "apps/StatefulSet": true, "apps/DaemonSet": true, "apps/ReplicaSet": true,
	"batch/Job": true, "batch/CronJob": true,
	"rbac.authorization.k8s.io/Role": true, "rbac.authorization.k8s.io/RoleBinding": true,
	"autoscaling/HorizontalPodAutoscaler": true, "policy/PodDisruptionBudget": true,
	"networking.k8s.io/Ingress": true, "networking.k8s.io/NetworkPolicy": true,
}

// neverKinds are never imported, even with --all-kinds: what the cluster
// derives (endpoints, events) and runtime state (Leases, Piceli's own lock
// among them).
var neverKinds = map[string]bool{
	"/Endpoints": true, "discovery.k8s.io/EndpointSlice": true, "/Event": true, "events.k8s.io/Event": true,
	"coordination.k8s.io/Lease": true,
}

// kind is one listable kind of the cluster's API.
type kind struct {
	gvr        schema.GroupVersionResource
	gvk        schema.GroupVersionKind
	singular   string
	shortNames []string
}

func (k kind) key() string { return k.gvk.Group + "/" + k.gvk.Kind }

// names reports whether s names the kind: its kind, plural or singular
// resource or a short name, case-insensitively, optionally with its group
// ("deployments.apps").
func (k kind) names(s string) bool {
	s = strings.ToLower(s)
	if g, ok := strings.CutSuffix(s, "."+strings.ToLower(k.gvk.Group)); ok && k.gvk.Group != "" {
		s = g
	}
	return s == strings.ToLower(k.gvk.Kind) || s == k.gvr.Resource || s == k.singular || slices.Contains(k.shortNames, s)
}

// listable returns the namespaced kinds of discovery that can be listed
// and created, in group and kind order, without neverKinds.
func listable(lists []*metav1.APIResourceList) []kind {
	var out []kind
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			continue
		}
		for _, r := range l.APIResources {
			k := kind{gvr: gv.WithResource(r.Name), gvk: gv.WithKind(r.Kind), singular: r.SingularName, shortNames: r.ShortNames}
			if r.Namespaced && !strings.Contains(r.Name, "/") && slices.Contains(r.Verbs, "list") && slices.Contains(r.Verbs, "create") && !neverKinds[k.key()] {
				out = append(out, k)
			}
		}
	}
	slices.SortFunc(out, func(a, b kind) int { return strings.Compare(a.key(), b.key()) })
	return out
}

// selection is what --select asks for: names by kind.
type selection struct {
	kinds []kind
	names map[string][]string // kind key -> names
}

// choose picks the kinds to list: appKinds (every kind with allKinds), or
// those --select names, whose entries are KIND/NAME.
func choose(all []kind, allKinds bool, selects []string) (selection, error) {
	sel := selection{names: map[string][]string{}}
	if len(selects) == 0 {
		for _, k := range all {
			if allKinds || appKinds[k.key()] {
				sel.kinds = append(sel.kinds, k)
			}
		}
		return sel, nil
	}
	for _, s := range selects {
		if err := sel.add(all, s); err != nil {
			return selection{}, err
		}
	}
	return sel, nil
}

// add adds one KIND/NAME of --select.
func (sel *selection) add(all []kind, s string) error {
	kindName, name, ok := strings.Cut(s, "/")
	if !ok || kindName == "" || name == "" {
		return refusef("selection %q: want KIND/NAME, such as deployment/web", s)
	}
	i := slices.IndexFunc(all, func(k kind) bool { return k.names(kindName) })
	if i < 0 {
		return refusef("selection %q: the cluster serves no namespaced kind %q that can be listed and created", s, kindName)
	}
	k := all[i]
	if _, seen := sel.names[k.key()]; !seen {
		sel.kinds = append(sel.kinds, k)
	}
	sel.names[k.key()] = append(sel.names[k.key()], name)
	return nil
}

// missing returns the selected objects that were not found, as
// kind/name.
func (sel selection) missing(found map[string]bool) []string {
	var out []string
	for _, k := range sel.kinds {
		for _, n := range sel.names[k.key()] {
			if !found[k.key()+"/"+n] {
				out = append(out, fmt.Sprintf("%s/%s", k.gvk.Kind, n))
			}
		}
	}
	return out
}
