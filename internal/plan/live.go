package plan

import (
	"context"
	"fmt"
	"sync"

	"golang.org/x/sync/errgroup"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/pynenc/piceli/internal/object"
)

// listKey is one LIST request: a resource in a namespace ("" for
// cluster-scoped resources), narrowed to the objects with one label
// selector or one name when Selector or Name is set.
type listKey struct {
	GVR       schema.GroupVersionResource
	Namespace string
	Selector  string // a label selector
	Name      string // metadata.name
}

// pageSize is how many objects one LIST page holds. Pages are read one
// after another, each decoded before the next is asked for, so a release
// of 1,000 objects of one kind waited for three round trips at kubectl's
// 500 (the last one empty, as a full page always promises more); 2,000
// answers it in one, and still bounds what one response holds.
const pageSize = 2000

// options is the ListOptions of k's first page.
func (k listKey) options() metav1.ListOptions {
	opts := metav1.ListOptions{Limit: pageSize, LabelSelector: k.Selector}
	if k.Name != "" {
		opts.FieldSelector = fields.OneTermEqualSelector("metadata.name", k.Name).String()
	}
	return opts
}

// liveIndex holds every object the LISTs returned, by reference.
type liveIndex struct {
	mu      sync.Mutex
	objects map[object.Ref]*unstructured.Unstructured
	byList  map[listKey][]*unstructured.Unstructured
}

// readLive lists each (resource, namespace) pair once, in parallel, instead
// of one GET per object: a release of 1,000 objects of 10 kinds costs 10
// round trips. A resource the cluster does not serve yet (its CRD is in
// this plan) lists as empty.
func readLive(ctx context.Context, dyn dynamic.Interface, keys []listKey, parallel int) (*liveIndex, error) {
	idx := &liveIndex{objects: map[object.Ref]*unstructured.Unstructured{}, byList: map[listKey][]*unstructured.Unstructured{}}
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(parallel)
	for _, k := range keys {
		g.Go(func() error { return idx.list(ctx, dyn, k) })
	}
	return idx, g.Wait()
}

func (idx *liveIndex) list(ctx context.Context, dyn dynamic.Interface, k listKey) error {
	items, err := listAll(ctx, dyn.Resource(k.GVR).Namespace(k.Namespace), k.options())
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("list %s in %q: %w", k.GVR.Resource, k.Namespace, err)
	}
	idx.mu.Lock()
	defer idx.mu.Unlock()
	for i := range items {
		u := &items[i]
		idx.objects[object.RefOf(u)] = u
		idx.byList[k] = append(idx.byList[k], u)
	}
	return nil
}

// listAll pages through a LIST, pageSize objects a page.
func listAll(ctx context.Context, r dynamic.ResourceInterface, opts metav1.ListOptions) ([]unstructured.Unstructured, error) {
	var out []unstructured.Unstructured
	for {
		l, err := r.List(ctx, opts)
		if err != nil {
			return nil, err
		}
		out = append(out, l.Items...)
		if l.GetContinue() == "" {
			return out, nil
		}
		opts.Continue = l.GetContinue()
	}
}

func (idx *liveIndex) get(r object.Ref) *unstructured.Unstructured {
	return idx.objects[r]
}
