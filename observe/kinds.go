package observe

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"

	"github.com/pynenc/piceli/internal/object"
)

// CommonKinds are the namespaced kinds Status looks for undeclared objects
// of in every archive namespace, besides the kinds the archive declares:
// what people and charts commonly add to a namespace by hand. A kind the
// cluster does not serve is skipped. Events, Endpoints, EndpointSlices,
// ReplicaSets and Leases are left out: the control plane makes them.
var CommonKinds = []schema.GroupKind{
	{Kind: "ConfigMap"}, {Kind: "Secret"}, {Kind: "Service"}, {Kind: "ServiceAccount"},
	{Kind: "PersistentVolumeClaim"}, {Kind: "Pod"},
	{Group: "apps", Kind: "Deployment"}, {Group: "apps", Kind: "StatefulSet"}, {Group: "apps", Kind: "DaemonSet"},
	{Group: "batch", Kind: "Job"}, {Group: "batch", Kind: "CronJob"},
	{Group: "rbac.authorization.k8s.io", Kind: "Role"}, {Group: "rbac.authorization.k8s.io", Kind: "RoleBinding"},
	{Group: "networking.k8s.io", Kind: "Ingress"}, {Group: "networking.k8s.io", Kind: "NetworkPolicy"},
	{Group: "autoscaling", Kind: "HorizontalPodAutoscaler"}, {Group: "policy", Kind: "PodDisruptionBudget"},
}

// served returns the CommonKinds the cluster serves and lets list, at
// their preferred version. A group whose discovery failed is left out and
// said in the error, which comes with what the other groups gave.
func (cl *Cluster) served() ([]Kind, error) {
	lists, err := cl.c.Discovery.ServerPreferredNamespacedResources()
	if err == nil {
		return commonServed(lists), nil
	}
	if !discovery.IsGroupDiscoveryFailedError(err) {
		lists = nil
	}
	return commonServed(lists), fmt.Errorf("discover the cluster's kinds: %w", err)
}

// commonServed picks the CommonKinds out of discovery's resource lists:
// top-level resources (not subresources) that allow list.
func commonServed(lists []*metav1.APIResourceList) []Kind {
	var out []Kind
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			continue
		}
		for _, r := range l.APIResources {
			gk := schema.GroupKind{Group: gv.Group, Kind: r.Kind}
			if slices.Contains(CommonKinds, gk) && !strings.Contains(r.Name, "/") && slices.Contains(r.Verbs, "list") {
				out = append(out, Kind{Group: gv.Group, Version: gv.Version, Resource: r.Name, Kind: r.Kind})
			}
		}
	}
	slices.SortFunc(out, func(a, b Kind) int { return strings.Compare(a.Group+"/"+a.Kind, b.Group+"/"+b.Kind) })
	return out
}

// undeclaredQueries are the metadata-only LISTs of the served kinds the
// archive declares none of, in each archive namespace, in a stable order.
func undeclaredQueries(a *Archive, served []Kind) []Listing {
	declared := map[schema.GroupKind]bool{}
	for _, o := range a.Objects {
		if o.Declared {
			declared[schema.GroupKind{Group: o.Ref.Group, Kind: o.Ref.Kind}] = true
		}
	}
	var out []Listing
	for _, k := range served {
		if declared[schema.GroupKind{Group: k.Group, Kind: k.Kind}] {
			continue
		}
		for _, ns := range a.Namespaces {
			out = append(out, Listing{Kind: k, Namespace: ns, MetadataOnly: true})
		}
	}
	return out
}

// ordinal is the tail a StatefulSet's controller gives the claims it
// makes: "-0", "-1", ...
var ordinal = regexp.MustCompile(`^-[0-9]+$`)

// templateClaims returns whether a reference names a claim that a listed
// StatefulSet's controller makes from one of its volume claim templates:
// TEMPLATE-SET-ORDINAL in the set's namespace.
func templateClaims(listings []Listing) func(object.Ref) bool {
	prefixes := map[string][]string{} // namespace → "TEMPLATE-SET"
	for _, l := range listings {
		if l.Kind.Group != "apps" || l.Kind.Kind != "StatefulSet" {
			continue
		}
		for _, u := range l.Items {
			templates, _, _ := unstructured.NestedSlice(u.Object, "spec", "volumeClaimTemplates")
			for _, t := range templates {
				m, _ := t.(map[string]any)
				if name, _, _ := unstructured.NestedString(m, "metadata", "name"); name != "" {
					prefixes[u.GetNamespace()] = append(prefixes[u.GetNamespace()], name+"-"+u.GetName())
				}
			}
		}
	}
	return func(ref object.Ref) bool {
		if ref.Group != "" || ref.Kind != "PersistentVolumeClaim" {
			return false
		}
		return slices.ContainsFunc(prefixes[ref.Namespace], func(p string) bool {
			rest, ok := strings.CutPrefix(ref.Name, p)
			return ok && ordinal.MatchString(rest)
		})
	}
}
