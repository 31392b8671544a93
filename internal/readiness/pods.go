package readiness

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// maxDiagnosis bounds the lines kept per object, so a large workload's
// error stays readable.
const maxDiagnosis = 10

var podsResource = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

// diagnose fills the Diagnosis of objects idx, reading in parallel under a
// deadline of its own (the wait's may have passed).
func (w *waiter) diagnose(ctx context.Context, idx []int) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), diagnoseTimeout)
	defer cancel()
	parallel(w.opts.Parallel, idx, func(i int) {
		if w.live[i] != nil {
			w.objects[i].Diagnosis = w.explain(ctx, w.live[i])
		}
	})
}

// explain says why obj is not ready: for a LoadBalancer Service, that no
// address was assigned; for a PersistentVolumeClaim, why no volume bound
// it; for anything else, what its pods say.
func (w *waiter) explain(ctx context.Context, obj *unstructured.Unstructured) []string {
	switch kindKey(obj) {
	case "Service":
		return loadBalancerLines(obj)
	case "PersistentVolumeClaim":
		return w.explainClaim(ctx, obj)
	}
	return w.explainPods(ctx, obj)
}

// explainPods returns the Diagnose lines of obj's pods, at most
// maxDiagnosis.
func (w *waiter) explainPods(ctx context.Context, obj *unstructured.Unstructured) []string {
	pods, err := podsOf(ctx, w.c.Resource(podsResource).Namespace(obj.GetNamespace()), obj)
	if err != nil {
		return []string{"list pods: " + err.Error()}
	}
	lines := Diagnose(pods)
	if len(lines) > maxDiagnosis {
		more := len(lines) - maxDiagnosis
		lines = append(lines[:maxDiagnosis], fmt.Sprintf("and %d more", more))
	}
	return lines
}

// podLister lists pods of one namespace.
type podLister interface {
	List(ctx context.Context, opts metav1.ListOptions) (*unstructured.UnstructuredList, error)
}

// podsOf returns obj itself when it is a Pod, else the live pods its
// spec.selector.matchLabels selects (none without matchLabels; the
// selector's matchExpressions are not applied).
func podsOf(ctx context.Context, c podLister, obj *unstructured.Unstructured) ([]corev1.Pod, error) {
	if obj.GroupVersionKind().GroupKind() == (schema.GroupKind{Kind: "Pod"}) {
		p, err := toPod(obj)
		return []corev1.Pod{p}, err
	}
	match, found, _ := unstructured.NestedStringMap(obj.Object, "spec", "selector", "matchLabels")
	if !found || len(match) == 0 {
		return nil, nil
	}
	list, err := c.List(ctx, metav1.ListOptions{LabelSelector: labels.SelectorFromSet(match).String()})
	if err != nil {
		return nil, err
	}
	return livePods(list.Items)
}

// livePods converts pods not being deleted.
func livePods(items []unstructured.Unstructured) ([]corev1.Pod, error) {
	var pods []corev1.Pod
	for i := range items {
		if items[i].GetDeletionTimestamp() != nil {
			continue
		}
		p, err := toPod(&items[i])
		if err != nil {
			return nil, err
		}
		pods = append(pods, p)
	}
	return pods, nil
}

func toPod(u *unstructured.Unstructured) (corev1.Pod, error) {
	var p corev1.Pod
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &p); err != nil {
		return p, fmt.Errorf("decode Pod/%s/%s: %w", u.GetNamespace(), u.GetName(), err)
	}
	return p, nil
}
