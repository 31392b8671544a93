package readiness

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
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
	r := &claimReader{c: w.c}
	parallel(w.opts.Parallel, idx, func(i int) {
		if w.live[i] != nil {
			w.objects[i].Diagnosis = w.explain(ctx, r, w.live[i])
		}
	})
}

// explain says why obj is not ready: for a LoadBalancer Service, that no
// address was assigned; for a PersistentVolumeClaim, why no volume bound
// it; for anything else, what its pods say and why the claims they need
// are not bound.
func (w *waiter) explain(ctx context.Context, r *claimReader, obj *unstructured.Unstructured) []string {
	switch kindKey(obj) {
	case "Service":
		return loadBalancerLines(obj)
	case "PersistentVolumeClaim":
		if line, _ := r.explain(ctx, obj, true); line != "" {
			return []string{line}
		}
		return nil
	}
	return capLines(append(w.explainPods(ctx, obj), w.explainClaims(ctx, r, obj)...))
}

// explainClaims says, for each claim obj's pods need (see claimsOf), that
// it does not exist or why it is not bound: "claim NAME: ...".
func (w *waiter) explainClaims(ctx context.Context, r *claimReader, obj *unstructured.Unstructured) []string {
	var lines []string
	for _, name := range claimsOf(obj) {
		claim, err := w.c.Resource(claimsResource).Namespace(obj.GetNamespace()).Get(ctx, name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			lines = append(lines, fmt.Sprintf("claim %s does not exist", name))
		case err != nil:
			lines = append(lines, fmt.Sprintf("claim %s: read: %v", name, err))
		default:
			if line, _ := r.explain(ctx, claim, true); line != "" {
				lines = append(lines, fmt.Sprintf("claim %s: %s", name, line))
			}
		}
	}
	return lines
}

// capLines keeps at most maxDiagnosis lines and says how many it left out.
func capLines(lines []string) []string {
	if len(lines) <= maxDiagnosis {
		return lines
	}
	more := len(lines) - maxDiagnosis
	return append(lines[:maxDiagnosis], fmt.Sprintf("and %d more", more))
}

// explainPods returns the Diagnose lines of obj's pods.
func (w *waiter) explainPods(ctx context.Context, obj *unstructured.Unstructured) []string {
	pods, err := podsOf(ctx, w.c.Resource(podsResource).Namespace(obj.GetNamespace()), obj)
	if err != nil {
		return []string{"list pods: " + err.Error()}
	}
	return Diagnose(pods)
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
