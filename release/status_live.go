package release

import (
	"context"
	"slices"
	"sync"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/metadata"

	"github.com/pynenc/piceli/internal/kube"
	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/status"
)

// listParallel bounds the LISTs status sends at once.
const listParallel = 8

// workloadKinds have pods whose diagnosis explains them.
var workloadKinds = []string{"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job", "CronJob", "Pod"}

// listKey is one LIST: a resource in a namespace ("" cluster-wide).
type listKey struct {
	gvr       schema.GroupVersionResource
	kind      string
	namespace string
}

func gvr(apiVersion, resource string) schema.GroupVersionResource {
	gv, _ := schema.ParseGroupVersion(apiVersion)
	return gv.WithResource(resource)
}

// readLive lists what status needs, in parallel: each declared kind per
// namespace, selected by the release's label (Secrets as metadata only),
// and the pods and claims of namespaces with workloads. A failed LIST is
// recorded in Unread; the objects it would have found are unknown.
func readLive(ctx context.Context, c *kube.Client, release string, declared []status.Declared) (status.Live, error) {
	live := status.Live{Objects: map[object.Ref]*unstructured.Unstructured{}, Pods: map[string][]corev1.Pod{},
		Claims: map[string][]corev1.PersistentVolumeClaim{}, Unread: map[string]string{}}
	md, err := metadata.NewForConfig(c.Config)
	if err != nil {
		return live, err
	}
	keys, podNS, claimNS := listsOf(declared)
	want := map[object.Ref]bool{}
	for _, d := range declared {
		want[d.Ref] = true
	}
	var mu sync.Mutex
	var g errgroup.Group
	g.SetLimit(listParallel)
	sel := metav1.ListOptions{LabelSelector: object.ReleaseLabel + "=" + release}
	for _, k := range keys {
		g.Go(func() error {
			items, err := listKind(ctx, c, md, k, sel)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				live.Unread[k.kind+"/"+k.namespace] = err.Error()
				return nil
			}
			for _, u := range items {
				if ref := object.RefOf(u); want[ref] {
					live.Objects[ref] = u
				}
			}
			return nil
		})
	}
	for _, ns := range podNS {
		g.Go(func() error { return listPods(ctx, c, ns, &mu, live) })
	}
	for _, ns := range claimNS {
		g.Go(func() error { return listClaims(ctx, c, ns, &mu, live) })
	}
	return live, g.Wait()
}

// listsOf returns the LISTs declared objects need, and the namespaces
// whose pods and claims are read.
func listsOf(declared []status.Declared) ([]listKey, []string, []string) {
	seen := map[listKey]bool{}
	var keys []listKey
	var pods, claims []string
	for _, d := range declared {
		k := listKey{gvr: d.GVR, kind: d.Ref.Kind, namespace: d.Ref.Namespace}
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
		if slices.Contains(workloadKinds, d.Ref.Kind) && !slices.Contains(pods, d.Ref.Namespace) {
			pods = append(pods, d.Ref.Namespace)
		}
		if d.Ref.Kind == "StatefulSet" && !slices.Contains(claims, d.Ref.Namespace) {
			claims = append(claims, d.Ref.Namespace)
		}
	}
	return keys, pods, claims
}

// listKind lists one kind in one namespace; Secrets as metadata only.
func listKind(ctx context.Context, c *kube.Client, md metadata.Interface, k listKey, sel metav1.ListOptions) ([]*unstructured.Unstructured, error) {
	if k.gvr.Group == "" && k.gvr.Resource == "secrets" {
		list, err := md.Resource(k.gvr).Namespace(k.namespace).List(ctx, sel)
		if err != nil {
			return nil, err
		}
		out := make([]*unstructured.Unstructured, len(list.Items))
		for i := range list.Items {
			m := list.Items[i].ObjectMeta
			u := &unstructured.Unstructured{Object: map[string]any{}}
			u.SetAPIVersion("v1")
			u.SetKind("Secret")
			u.SetName(m.Name)
			u.SetNamespace(m.Namespace)
			u.SetLabels(m.Labels)
			if m.DeletionTimestamp != nil {
				u.SetDeletionTimestamp(m.DeletionTimestamp)
			}
			out[i] = u
		}
		return out, nil
	}
	list, err := c.Dynamic.Resource(k.gvr).Namespace(k.namespace).List(ctx, sel)
	if err != nil {
		return nil, err
	}
	out := make([]*unstructured.Unstructured, len(list.Items))
	for i := range list.Items {
		out[i] = &list.Items[i]
	}
	return out, nil
}

func listPods(ctx context.Context, c *kube.Client, ns string, mu *sync.Mutex, live status.Live) error {
	list, err := c.Clientset.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	mu.Lock()
	defer mu.Unlock()
	if err != nil {
		live.Unread["Pod/"+ns] = err.Error()
		return nil
	}
	live.Pods[ns] = list.Items
	return nil
}

func listClaims(ctx context.Context, c *kube.Client, ns string, mu *sync.Mutex, live status.Live) error {
	list, err := c.Clientset.CoreV1().PersistentVolumeClaims(ns).List(ctx, metav1.ListOptions{})
	mu.Lock()
	defer mu.Unlock()
	if err != nil {
		live.Unread["PersistentVolumeClaim/"+ns] = err.Error()
		return nil
	}
	live.Claims[ns] = list.Items
	return nil
}
