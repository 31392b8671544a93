package object

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/api/validation/path"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
)

// nameRule checks a metadata.name as the API server would for one kind.
type nameRule func(name string) []string

// rbacGroup's kinds take any name that can be a URL path segment.
const rbacGroup = "rbac.authorization.k8s.io"

// nameRules are the kinds whose names the API server checks by a rule
// other than a DNS-1123 subdomain, with the apimachinery check it uses.
var nameRules = map[schema.GroupKind]nameRule{
	{Kind: "Namespace"}:                            validation.IsDNS1123Label,
	{Kind: "Service"}:                              validation.IsDNS1035Label,
	{Group: rbacGroup, Kind: "Role"}:               segmentName,
	{Group: rbacGroup, Kind: "ClusterRole"}:        segmentName,
	{Group: rbacGroup, Kind: "RoleBinding"}:        segmentName,
	{Group: rbacGroup, Kind: "ClusterRoleBinding"}: segmentName,
}

// subdomainKinds are the built-in kinds known to take a DNS-1123
// subdomain as their name. Other kinds of built-in groups may be laxer
// (an APIService named "v1.", an IPAddress named "2001:db8::1"), so they
// get the rule every name must meet, segmentName.
var subdomainKinds = map[string][]string{
	"":                             {"ConfigMap", "Secret", "ServiceAccount", "Pod", "PodTemplate", "ReplicationController", "PersistentVolume", "PersistentVolumeClaim", "Endpoints", "LimitRange", "ResourceQuota", "Node"},
	"apps":                         {"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "ControllerRevision"},
	"batch":                        {"Job", "CronJob"},
	"policy":                       {"PodDisruptionBudget"},
	"autoscaling":                  {"HorizontalPodAutoscaler"},
	"networking.k8s.io":            {"Ingress", "IngressClass", "NetworkPolicy"},
	"storage.k8s.io":               {"StorageClass"},
	"scheduling.k8s.io":            {"PriorityClass"},
	"coordination.k8s.io":          {"Lease"},
	"discovery.k8s.io":             {"EndpointSlice"},
	"apiextensions.k8s.io":         {"CustomResourceDefinition"},
	"admissionregistration.k8s.io": {"ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"},
}

// NameProblems returns why name is not a valid metadata.name for an object
// of group and kind, or nil. Most kinds, custom resources among them,
// take a DNS-1123 subdomain; a Namespace a DNS-1123 label; a Service a
// DNS-1035 label; RBAC objects and the built-in kinds Piceli does not
// know the rule of any name that is a URL path segment (not "." or "..",
// no '/' or '%'). Piceli also refuses, for every kind, a name with a
// control character or invalid UTF-8, which the API server takes for
// path-segment kinds: such a name would reach terminals and files.
func NameProblems(group, kind, name string) []string {
	if name == "" {
		return []string{"is required"}
	}
	return ruleOf(group, kind)(name)
}

// ruleOf returns the name rule of group and kind.
func ruleOf(group, kind string) nameRule {
	if r, ok := nameRules[schema.GroupKind{Group: group, Kind: kind}]; ok {
		return r
	}
	if kinds, ok := subdomainKinds[group]; ok {
		if contains(kinds, kind) {
			return validation.IsDNS1123Subdomain
		}
		return segmentName
	}
	if builtinGroup(group) {
		return segmentName
	}
	return validation.IsDNS1123Subdomain
}

func contains(kinds []string, kind string) bool {
	for _, k := range kinds {
		if k == kind {
			return true
		}
	}
	return false
}

// builtinGroup reports whether group may be one Kubernetes serves itself:
// the core group, a group without a dot (apps, batch, policy) or one
// under k8s.io. Custom resources of other groups take DNS-1123
// subdomains, as the apiextensions server checks.
func builtinGroup(group string) bool {
	return group == "" || !strings.Contains(group, ".") || strings.HasSuffix(group, ".k8s.io")
}

// segmentName is path.IsValidPathSegmentName, refusing also control
// characters and invalid UTF-8.
func segmentName(name string) []string {
	msgs := path.IsValidPathSegmentName(name)
	if !utf8.ValidString(name) {
		msgs = append(msgs, "must be valid UTF-8")
	}
	if strings.ContainsFunc(name, unicode.IsControl) {
		msgs = append(msgs, "may not contain control characters")
	}
	return msgs
}

// NamespaceProblems returns why ns is not a valid metadata.namespace (a
// DNS-1123 label), or nil. An empty ns is valid: no namespace.
func NamespaceProblems(ns string) []string {
	if ns == "" {
		return nil
	}
	return validation.IsDNS1123Label(ns)
}

// CheckNames returns an error naming the key and the object when u's
// metadata.name or metadata.namespace is not valid for its kind
// (NameProblems, NamespaceProblems), or nil. Names in the error are quoted
// and shortened, so no input reaches it raw.
func CheckNames(u *unstructured.Unstructured) error {
	ref := RefOf(u)
	if msgs := NameProblems(ref.Group, ref.Kind, ref.Name); len(msgs) > 0 {
		return fmt.Errorf("%s: metadata.name: %s", ShownRef(ref), strings.Join(msgs, "; "))
	}
	if msgs := NamespaceProblems(ref.Namespace); len(msgs) > 0 {
		return fmt.Errorf("%s: metadata.namespace %s: %s", ShownRef(ref), Shown(ref.Namespace), strings.Join(msgs, "; "))
	}
	return nil
}

// maxShown bounds how much of a name Shown quotes.
const maxShown = 80

// Shown quotes s for an error or a log line, escaping newlines and other
// control characters, and cuts it after 80 bytes with "..." and its
// length, so a huge name does not flood the message.
func Shown(s string) string {
	if len(s) <= maxShown {
		return fmt.Sprintf("%q", s)
	}
	cut := maxShown
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%q... (%d bytes)", s[:cut], len(s))
}

// ShownRef spells ref as Kind/namespace/name (Kind/name without a
// namespace), the way plans and errors name objects. A namespace or name
// that is not plain (printable ASCII without spaces, quotes or slashes, at
// most 80 bytes) is quoted by Shown, so a hostile name cannot forge a line.
func ShownRef(ref Ref) string {
	parts := []string{shownPart(ref.Kind)}
	if ref.Namespace != "" {
		parts = append(parts, shownPart(ref.Namespace))
	}
	return strings.Join(append(parts, shownPart(ref.Name)), "/")
}

// shownPart is s as is when it is plain, else Shown(s).
func shownPart(s string) string {
	if s == "" || len(s) > maxShown {
		return Shown(s)
	}
	for _, c := range s {
		if c <= ' ' || c > '~' || c == '"' || c == '/' || c == '\\' {
			return Shown(s)
		}
	}
	return s
}
