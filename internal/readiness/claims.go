package readiness

import (
	"context"
	"fmt"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

var (
	storageClassesResource = schema.GroupVersionResource{Group: "storage.k8s.io", Version: "v1", Resource: "storageclasses"}
	claimsResource         = schema.GroupVersionResource{Version: "v1", Resource: "persistentvolumeclaims"}
	eventsResource         = schema.GroupVersionResource{Version: "v1", Resource: "events"}
)

// maxClaimEvents bounds the events read about one claim.
const maxClaimEvents = 100

// maxOrdinals bounds the claims per volume claim template of a
// StatefulSet that a diagnosis reads: the first pods' claims say what the
// others' would.
const maxOrdinals = 3

// claimReader reads what explains Pending claims: the StorageClasses once,
// each claim's events. It is safe for concurrent use.
type claimReader struct {
	c       dynamic.Interface
	once    sync.Once
	classes []unstructured.Unstructured
	err     error
}

// storageClasses lists the cluster's StorageClasses, once.
func (r *claimReader) storageClasses(ctx context.Context) ([]unstructured.Unstructured, error) {
	r.once.Do(func() {
		list, err := r.c.Resource(storageClassesResource).List(ctx, metav1.ListOptions{})
		if err != nil {
			r.err = fmt.Errorf("list StorageClasses: %w", err)
			return
		}
		r.classes = list.Items
	})
	return r.classes, r.err
}

// events lists the events about claim, at most maxClaimEvents.
func (r *claimReader) events(ctx context.Context, claim *unstructured.Unstructured) ([]unstructured.Unstructured, error) {
	sel := fields.OneTermEqualSelector("involvedObject.uid", string(claim.GetUID())).String()
	list, err := r.c.Resource(eventsResource).Namespace(claim.GetNamespace()).List(ctx, metav1.ListOptions{FieldSelector: sel, Limit: maxClaimEvents})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

// explain says why claim is not bound and whether that is a problem known
// now (see claimDiagnosis); "" for a claim that is not Pending. waited
// says the claim was Pending at an earlier poll. When its events cannot
// be read, nothing is said of a provisioner that did not answer.
func (r *claimReader) explain(ctx context.Context, claim *unstructured.Unstructured, waited bool) (string, bool) {
	if phase, _, _ := unstructured.NestedString(claim.Object, "status", "phase"); phase != "" && phase != "Pending" {
		return "", false
	}
	classes, err := r.storageClasses(ctx)
	if err != nil {
		return "no provisioner bound the claim; " + err.Error(), false
	}
	events, err := r.events(ctx, claim)
	if err != nil {
		waited = false
	}
	return claimDiagnosis(claim, claimFacts{Classes: classes, Events: events, Waited: waited})
}

// claimsOf names the PersistentVolumeClaims, in obj's namespace, that obj
// needs bound before it can be ready: itself for a claim; the claims a
// Pod, or a workload's pod template, mounts; and for a StatefulSet the
// claims of its volume claim templates for its first maxOrdinals pods.
func claimsOf(obj *unstructured.Unstructured) []string {
	switch kindKey(obj) {
	case "PersistentVolumeClaim":
		return []string{obj.GetName()}
	case "Pod":
		return mountedClaims(obj.Object, "spec", "volumes")
	}
	names := mountedClaims(obj.Object, "spec", "template", "spec", "volumes")
	if kindKey(obj) == "apps/StatefulSet" {
		names = append(names, templateClaims(obj)...)
	}
	return names
}

// mountedClaims names the claims of the volumes at path.
func mountedClaims(obj map[string]any, path ...string) []string {
	vols, _, _ := unstructured.NestedSlice(obj, path...)
	var names []string
	for _, v := range vols {
		m, _ := v.(map[string]any)
		if name, _, _ := unstructured.NestedString(m, "persistentVolumeClaim", "claimName"); name != "" {
			names = append(names, name)
		}
	}
	return names
}

// templateClaims names the claims a StatefulSet's controller makes for its
// first pods: TEMPLATE-SET-ORDINAL.
func templateClaims(sts *unstructured.Unstructured) []string {
	replicas, found, _ := unstructured.NestedInt64(sts.Object, "spec", "replicas")
	if !found {
		replicas = 1
	}
	templates, _, _ := unstructured.NestedSlice(sts.Object, "spec", "volumeClaimTemplates")
	var names []string
	for _, t := range templates {
		m, _ := t.(map[string]any)
		tpl, _, _ := unstructured.NestedString(m, "metadata", "name")
		for i := range min(replicas, maxOrdinals) {
			names = append(names, fmt.Sprintf("%s-%s-%d", tpl, sts.GetName(), i))
		}
	}
	return names
}
