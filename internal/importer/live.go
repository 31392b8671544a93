package importer

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"

	"github.com/pynenc/piceli/internal/kube"
	"github.com/pynenc/piceli/internal/object"
)

// Target names the namespace a live import reads, by the release API's
// connection rules: an explicit kubeconfig file and context, never
// $KUBECONFIG, ~/.kube/config or a current-context.
type Target struct {
	Kubeconfig string // required
	Context    string // required
	Namespace  string // required
	// AllowExec permits a kubeconfig user that runs a credential plugin.
	AllowExec bool
	// Select limits the import to these KIND/NAME objects (kind, resource
	// or short name, case-insensitive); empty reads every object of the
	// kinds.
	Select []string
	// AllKinds reads every namespaced kind the cluster serves that can be
	// listed and created, not only the kinds apps are made of.
	AllKinds bool
	// WrapTransport wraps every request's transport; tests count requests
	// with it.
	WrapTransport func(http.RoundTripper) http.RoundTripper
}

// readLive lists the target namespace, one LIST per kind, and returns the
// objects to import, cleaned.
func readLive(ctx context.Context, t Target, log io.Writer) ([]source, error) {
	if t.Kubeconfig == "" || t.Context == "" || t.Namespace == "" {
		return nil, refusef("import live needs a kubeconfig file, its context and a namespace: piceli never uses $KUBECONFIG, ~/.kube/config or a current-context")
	}
	if defaultKubeconfig(t.Kubeconfig) {
		return nil, refusef("kubeconfig %s is the default kubeconfig: piceli never uses it, so that nothing reaches a cluster by accident; write a kubeconfig file for this cluster", t.Kubeconfig)
	}
	c, err := kube.Connect(ctx, kube.Options{Kubeconfig: t.Kubeconfig, Context: t.Context, AllowExec: t.AllowExec, WrapTransport: t.WrapTransport})
	if err != nil {
		return nil, err
	}
	fmt.Fprintln(log, c.Using())
	if err := checkNamespace(ctx, c, t.Namespace); err != nil {
		return nil, err
	}
	sel, err := kindsOf(c, t)
	if err != nil {
		return nil, err
	}
	items, err := list(ctx, c, t.Namespace, sel)
	if err != nil {
		return nil, err
	}
	return prepare(items, t.Namespace), nil
}

// defaultKubeconfig reports whether path is $HOME/.kube/config, also
// through symbolic links: release.toml refuses it, so import does too.
func defaultKubeconfig(path string) bool {
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return false
	}
	def := filepath.Join(home, ".kube", "config")
	if absolute(path) == def {
		return true
	}
	a, errA := filepath.EvalSymlinks(path)
	b, errB := filepath.EvalSymlinks(def)
	return errA == nil && errB == nil && a == b
}

// checkNamespace refuses a namespace that does not exist.
func checkNamespace(ctx context.Context, c *kube.Client, ns string) error {
	_, err := c.Clientset.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return refusef("namespace %q does not exist in context %q", ns, c.ContextName)
	case err != nil:
		return fmt.Errorf("read namespace %q in context %q: %w", ns, c.ContextName, err)
	}
	return nil
}

// kindsOf discovers the kinds to list. A group whose discovery failed (an
// aggregated API that is down) is left out, not fatal.
func kindsOf(c *kube.Client, t Target) (selection, error) {
	lists, err := c.Discovery.ServerPreferredNamespacedResources()
	if err != nil && !discovery.IsGroupDiscoveryFailedError(err) {
		return selection{}, fmt.Errorf("discover the API of context %q: %w", c.ContextName, err)
	}
	return choose(listable(lists), t.AllKinds, t.Select)
}

// list reads each kind with one LIST, Secrets' values dropped as soon as
// they arrive.
func list(ctx context.Context, c *kube.Client, ns string, sel selection) ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	found := map[string]bool{}
	for _, k := range sel.kinds {
		l, err := c.Dynamic.Resource(k.gvr).Namespace(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, fmt.Errorf("list %s in namespace %q: %w", k.gvr.Resource, ns, err)
		}
		names := sel.names[k.key()]
		for i := range l.Items {
			u := &l.Items[i]
			u.SetAPIVersion(k.gvk.GroupVersion().String())
			u.SetKind(k.gvk.Kind)
			forgetSecretValues(u)
			if len(names) == 0 || slices.Contains(names, u.GetName()) {
				found[k.key()+"/"+u.GetName()] = true
				out = append(out, u)
			}
		}
	}
	if missing := sel.missing(found); len(missing) > 0 {
		return nil, refusef("selected objects %s not found in namespace %q", strings.Join(missing, ", "), ns)
	}
	return out, nil
}

// prepare turns listed objects into sources: objects the cluster made for
// others dropped, fields the server filled in pruned, owner references to
// objects not imported removed, server-owned fields cleaned.
func prepare(items []*unstructured.Unstructured, ns string) []source {
	listed := map[types.UID]bool{}
	for _, u := range items {
		listed[u.GetUID()] = true
	}
	var kept []*unstructured.Unstructured
	for _, u := range items {
		if derived(u, listed) {
			continue
		}
		os, _ := owners(u)
		ownFields(u, os)
		kept = append(kept, u)
	}
	imported := map[types.UID]bool{}
	for _, u := range kept {
		imported[u.GetUID()] = true
	}
	var out []source
	for _, u := range kept {
		keepOwners(u, imported)
		clean(u)
		out = append(out, source{origin: fmt.Sprintf("namespace %s: %s", ns, object.RefOf(u)), obj: u})
	}
	return out
}

// derived reports whether the cluster made u for something else: a
// controller in the listing owns it (pods of a ReplicaSet, ReplicaSets of
// a Deployment), only the control plane wrote it, or it is one of the
// objects every namespace gets.
func derived(u *unstructured.Unstructured, listed map[types.UID]bool) bool {
	if ref := metav1.GetControllerOf(u); ref != nil && listed[ref.UID] {
		return true
	}
	return systemOnly(u) || namespaceDefault(u)
}

// namespaceDefault reports whether u is one of the objects Kubernetes puts
// in every namespace: the kube-root-ca.crt ConfigMap, the default
// ServiceAccount and its token Secret.
func namespaceDefault(u *unstructured.Unstructured) bool {
	ref := object.RefOf(u)
	switch {
	case ref.Group == "" && ref.Kind == "ConfigMap" && ref.Name == "kube-root-ca.crt":
		return true
	case ref.Group == "" && ref.Kind == "ServiceAccount" && ref.Name == "default":
		return true
	case object.IsSecretRef(ref):
		t, _, _ := unstructured.NestedString(u.Object, "type")
		return t == "kubernetes.io/service-account-token" && u.GetAnnotations()["kubernetes.io/service-account.name"] == "default"
	}
	return false
}

// keepOwners removes owner references to objects the import leaves out.
func keepOwners(u *unstructured.Unstructured, imported map[types.UID]bool) {
	refs := u.GetOwnerReferences()
	kept := slices.DeleteFunc(slices.Clone(refs), func(r metav1.OwnerReference) bool { return !imported[r.UID] })
	if len(kept) == len(refs) {
		return
	}
	if len(kept) == 0 {
		unstructured.RemoveNestedField(u.Object, "metadata", "ownerReferences")
		return
	}
	u.SetOwnerReferences(kept)
}
