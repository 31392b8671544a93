package readiness

import (
	"context"
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var storageClassesResource = schema.GroupVersionResource{Group: "storage.k8s.io", Version: "v1", Resource: "storageclasses"}

// defaultClassAnnotations mark the default StorageClass, GA and beta.
var defaultClassAnnotations = []string{"storageclass.kubernetes.io/is-default-class", "storageclass.beta.kubernetes.io/is-default-class"}

// explainClaim says why a Pending claim is not bound, from the cluster's
// StorageClasses.
func (w *waiter) explainClaim(ctx context.Context, claim *unstructured.Unstructured) []string {
	if phase, _, _ := unstructured.NestedString(claim.Object, "status", "phase"); phase != "" && phase != "Pending" {
		return nil
	}
	list, err := w.c.Resource(storageClassesResource).List(ctx, metav1.ListOptions{})
	if err != nil {
		return []string{"no provisioner bound the claim; list StorageClasses: " + err.Error()}
	}
	return claimLines(claim, list.Items)
}

// claimLines explains a Pending claim given the cluster's StorageClasses:
// the class it names is missing, or has not provisioned a volume (and may
// wait for a pod), or it names none and the cluster has no default, or it
// asks for no class or a given volume and none bound it.
func claimLines(claim *unstructured.Unstructured, classes []unstructured.Unstructured) []string {
	const why = "no provisioner bound the claim: "
	if pv, _, _ := unstructured.NestedString(claim.Object, "spec", "volumeName"); pv != "" {
		return []string{why + fmt.Sprintf("it names PersistentVolume %q, which has not bound it", pv)}
	}
	name, named, _ := unstructured.NestedString(claim.Object, "spec", "storageClassName")
	switch {
	case named && name == "":
		return []string{why + `it asks for no StorageClass (storageClassName ""), so only a PersistentVolume made beforehand can bind it, and none matching it has`}
	case named:
		if c := findClass(classes, name); c != nil {
			return []string{why + classIdle(c, fmt.Sprintf("its StorageClass %q", name))}
		}
		return []string{why + fmt.Sprintf("its StorageClass %q does not exist (the cluster has %s)", name, classNames(classes))}
	}
	if c := defaultClass(classes); c != nil {
		return []string{why + classIdle(c, fmt.Sprintf("it names no StorageClass, and the default StorageClass %q", c.GetName()))}
	}
	return []string{why + "it names no StorageClass and the cluster has no default StorageClass (it has " + classNames(classes) + ")"}
}

// classIdle says that class c, as what names it, has not provisioned a
// volume, and what it waits for when it binds late.
func classIdle(c *unstructured.Unstructured, what string) string {
	provisioner, _, _ := unstructured.NestedString(c.Object, "provisioner")
	s := fmt.Sprintf("%s (provisioner %s) has not provisioned a volume for it", what, provisioner)
	if mode, _, _ := unstructured.NestedString(c.Object, "volumeBindingMode"); mode == "WaitForFirstConsumer" {
		s += "; that class binds a claim only once a pod using it is scheduled (volumeBindingMode WaitForFirstConsumer)"
	}
	return s
}

func findClass(classes []unstructured.Unstructured, name string) *unstructured.Unstructured {
	for i := range classes {
		if classes[i].GetName() == name {
			return &classes[i]
		}
	}
	return nil
}

// defaultClass returns the first StorageClass, by name, marked default.
func defaultClass(classes []unstructured.Unstructured) *unstructured.Unstructured {
	var found *unstructured.Unstructured
	for i := range classes {
		c := &classes[i]
		for _, a := range defaultClassAnnotations {
			if c.GetAnnotations()[a] == "true" && (found == nil || c.GetName() < found.GetName()) {
				found = c
			}
		}
	}
	return found
}

// classNames lists the cluster's StorageClasses, sorted: "none" or
// "fast, slow".
func classNames(classes []unstructured.Unstructured) string {
	if len(classes) == 0 {
		return "none"
	}
	names := make([]string, len(classes))
	for i := range classes {
		names[i] = classes[i].GetName()
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}
