package observe

import (
	"context"
	"fmt"
	"slices"

	"golang.org/x/sync/errgroup"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/metadata"
)

// StatusOptions tune Status. The zero value is valid.
type StatusOptions struct {
	// Parallel bounds the LISTs in flight; zero means 4.
	Parallel int
}

// Status reconciles archive a with the cluster: one LIST per declared kind
// and archive namespace (one per cluster-scoped kind), one metadata-only
// LIST per common kind the archive does not declare (CommonKinds, those the
// cluster's discovery serves) and archive namespace, then Reconcile.
// An archive whose kinds and resources disagree with the cluster's
// discovery, or that names a namespace none of its objects is in, is
// refused (refusal.Is) before anything is listed. Secrets (the
// resource, whatever the kind) are listed as metadata only, so no secret
// value is ever read.
// A cluster other than the archive's (another kube-system UID) is said in
// Report.Cluster and makes the report unhealthy; a forbidden LIST makes
// its objects Unknown. Nothing is written.
func Status(ctx context.Context, cl *Cluster, a *Archive, opts StatusOptions) (*Report, error) {
	info := ClusterInfo{Server: cl.Server, Context: cl.Context}
	if id, err := cl.identity(ctx); err != nil {
		info.Message = fmt.Sprintf("cannot tell which cluster this is (%v); the archive is of cluster %s", err, a.Target.ClusterUID)
	} else {
		info.ClusterUID = id.ClusterUID
		info.Same = id.ClusterUID == a.Target.ClusterUID
		if !info.Same {
			info.Message = fmt.Sprintf("this is not the archive's cluster: the archive is of cluster %s (server %s, context %s), this cluster is %s", a.Target.ClusterUID, a.Target.Server, a.Target.Context, id.ClusterUID)
		}
	}
	if err := cl.checkArchive(a); err != nil {
		return nil, err
	}
	served, discoveryErr := cl.served()
	listings, err := cl.list(ctx, append(queries(a), undeclaredQueries(a, served)...), opts.Parallel)
	if err != nil {
		return nil, err
	}
	rep := Reconcile(a, info, listings)
	if discoveryErr != nil {
		rep.Unreadable = append(rep.Unreadable, "kinds the archive does not declare ("+discoveryErr.Error()+")")
	}
	return rep, nil
}

// queries are the LISTs Status makes: each declared kind in each archive
// namespace, cluster-scoped kinds once, in a stable order.
func queries(a *Archive) []Listing {
	seen := map[[2]any]bool{}
	var out []Listing
	for _, o := range a.Objects {
		if !o.Declared {
			continue
		}
		gv, _ := schema.ParseGroupVersion(o.APIVersion)
		k := Kind{Group: gv.Group, Version: gv.Version, Resource: o.Resource, Kind: o.Ref.Kind}
		nss := a.Namespaces
		if o.Ref.Namespace == "" {
			nss = []string{""}
		}
		for _, ns := range nss {
			if key := [2]any{k, ns}; !seen[key] {
				seen[key] = true
				out = append(out, Listing{Kind: k, Namespace: ns})
			}
		}
	}
	return out
}

// list runs the queries, at most parallel at once, results by index.
func (cl *Cluster) list(ctx context.Context, qs []Listing, parallel int) ([]Listing, error) {
	if parallel <= 0 {
		parallel = 4
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(parallel)
	out := slices.Clone(qs)
	for i := range out {
		g.Go(func() error { return cl.listOne(gctx, &out[i]) })
	}
	return out, g.Wait()
}

// listOne makes one LIST, unpaginated, into l.
func (cl *Cluster) listOne(ctx context.Context, l *Listing) error {
	gvr := schema.GroupVersionResource{Group: l.Kind.Group, Version: l.Kind.Version, Resource: l.Kind.Resource}
	items, err := listItems(ctx, cl, gvr, l)
	switch {
	case apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err):
		l.Forbidden = true
		return nil
	case err != nil:
		where := "cluster scope"
		if l.Namespace != "" {
			where = "namespace " + l.Namespace
		}
		return fmt.Errorf("list %s in %s: %w", l.Kind.Kind, where, err)
	}
	l.Items = items
	return nil
}

// listItems makes listing l; Secrets (the resource, whatever the kind),
// and any kind when l asks, as metadata only.
func listItems(ctx context.Context, cl *Cluster, gvr schema.GroupVersionResource, l *Listing) ([]*unstructured.Unstructured, error) {
	k, ns := l.Kind, l.Namespace
	if l.MetadataOnly || isSecrets(gvr) || k.Group == "" && k.Kind == "Secret" {
		return listMetadata(ctx, cl.meta, gvr, k, ns)
	}
	var ri dynamic.ResourceInterface = cl.c.Dynamic.Resource(gvr)
	if ns != "" {
		ri = cl.c.Dynamic.Resource(gvr).Namespace(ns)
	}
	list, err := ri.List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	out := make([]*unstructured.Unstructured, len(list.Items))
	for i := range list.Items {
		out[i] = &list.Items[i]
	}
	return out, nil
}

func listMetadata(ctx context.Context, m metadata.Interface, gvr schema.GroupVersionResource, k Kind, ns string) ([]*unstructured.Unstructured, error) {
	var ri metadata.ResourceInterface = m.Resource(gvr)
	if ns != "" {
		ri = m.Resource(gvr).Namespace(ns)
	}
	list, err := ri.List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	out := make([]*unstructured.Unstructured, len(list.Items))
	for i, it := range list.Items {
		u := &unstructured.Unstructured{}
		u.SetAPIVersion(schema.GroupVersion{Group: k.Group, Version: k.Version}.String())
		u.SetKind(k.Kind)
		u.SetNamespace(it.Namespace)
		u.SetName(it.Name)
		u.SetUID(it.UID)
		u.SetOwnerReferences(it.OwnerReferences)
		out[i] = u
	}
	return out, nil
}
