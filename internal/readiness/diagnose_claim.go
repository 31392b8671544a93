package readiness

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// BetaClassAnnotation names a claim's StorageClass the way manifests
// written before spec.storageClassName did; Kubernetes still reads it
// first.
const BetaClassAnnotation = "volume.beta.kubernetes.io/storage-class"

// defaultClassAnnotations mark the default StorageClass, GA and beta.
var defaultClassAnnotations = []string{"storageclass.kubernetes.io/is-default-class", "storageclass.beta.kubernetes.io/is-default-class"}

// provisionerAnnotations are set on a claim by the volume controller when
// it hands the claim to an external provisioner, GA and beta.
var provisionerAnnotations = []string{"volume.kubernetes.io/storage-provisioner", "volume.beta.kubernetes.io/storage-provisioner"}

// volumeController is the event source of the control plane's
// PersistentVolume controller; any other source of a provisioning event
// on a claim is a provisioner answering it.
const volumeController = "persistentvolume-controller"

// maxEventMessage bounds the part of an event's message a diagnosis
// quotes.
const maxEventMessage = 300

// ClaimClass returns the StorageClass a PersistentVolumeClaim asks for, as
// Kubernetes reads it: the annotation volume.beta.kubernetes.io/storage-class
// when present, else spec.storageClassName (field, nil when unset). named
// is false when neither is set, so the default StorageClass applies; a
// name of "" that is named asks for no class at all.
func ClaimClass(annotations map[string]string, field *string) (name string, named bool) {
	if class, ok := annotations[BetaClassAnnotation]; ok {
		return class, true
	}
	if field != nil {
		return *field, true
	}
	return "", false
}

// claimClassOf is ClaimClass of an unstructured claim.
func claimClassOf(claim *unstructured.Unstructured) (string, bool) {
	var field *string
	if s, found, _ := unstructured.NestedString(claim.Object, "spec", "storageClassName"); found {
		field = &s
	}
	return ClaimClass(claim.GetAnnotations(), field)
}

// claimFacts is what the cluster says of a Pending claim besides the claim
// itself.
type claimFacts struct {
	Classes []unstructured.Unstructured // every StorageClass
	Events  []unstructured.Unstructured // the claim's events
	// Waited says a provisioner has had time to answer: the claim was
	// already Pending at an earlier poll.
	Waited bool
}

// claimDiagnosis says why a Pending claim is not bound, and whether that
// is a problem known now rather than a wait that may still end well: its
// StorageClass is missing, the cluster has no default one, provisioning
// failed, or the claim was handed to a provisioner that nothing in the
// cluster runs (nothing answered it by the next poll). A class that binds
// late or a provisioner that is working is no problem yet.
func claimDiagnosis(claim *unstructured.Unstructured, f claimFacts) (line string, problem bool) {
	const why = "no provisioner bound the claim: "
	if pv, _, _ := unstructured.NestedString(claim.Object, "spec", "volumeName"); pv != "" {
		return why + fmt.Sprintf("it names PersistentVolume %q, which has not bound it", pv), false
	}
	name, named := claimClassOf(claim)
	switch {
	case named && name == "":
		return why + `it asks for no StorageClass (storageClassName ""), so only a PersistentVolume made beforehand can bind it, and none matching it has`, false
	case named:
		if c := findClass(f.Classes, name); c != nil {
			return classDiagnosis(claim, c, false, f)
		}
		return why + fmt.Sprintf("its StorageClass %q does not exist (the cluster has %s)", name, classNames(f.Classes)), true
	}
	if c := defaultClass(f.Classes); c != nil {
		return classDiagnosis(claim, c, true, f)
	}
	return why + "it names no StorageClass and the cluster has no default StorageClass (it has " + classNames(f.Classes) + ")", true
}

// classDiagnosis explains a Pending claim of class c (the default one when
// byDefault): provisioning failed, no provisioner answered, or the class
// has not provisioned a volume yet.
func classDiagnosis(claim, c *unstructured.Unstructured, byDefault bool, f claimFacts) (string, bool) {
	provisioner, _, _ := unstructured.NestedString(c.Object, "provisioner")
	class := fmt.Sprintf("StorageClass %q (provisioner %s)", c.GetName(), provisioner)
	if byDefault {
		class = fmt.Sprintf("StorageClass %q (the default, as the claim names none; provisioner %s)", c.GetName(), provisioner)
	}
	if msg := lastProvisioningFailure(f.Events); msg != "" {
		return class + ": provisioning failed: " + msg, true
	}
	if to := handedTo(claim); to != "" && f.Waited && !answered(f.Events) {
		return class + fmt.Sprintf(": no provisioner is running for it in this cluster (the volume controller handed the claim to %s and nothing answered)", to), true
	}
	what := fmt.Sprintf("its StorageClass %q", c.GetName())
	if byDefault {
		what = fmt.Sprintf("it names no StorageClass, and the default StorageClass %q", c.GetName())
	}
	return "no provisioner bound the claim: " + classIdle(c, what), false
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

// handedTo returns the provisioner the volume controller handed the claim
// to, or "".
func handedTo(claim *unstructured.Unstructured) string {
	for _, a := range provisionerAnnotations {
		if p := claim.GetAnnotations()[a]; p != "" {
			return p
		}
	}
	return ""
}

// answered reports whether a provisioner (any source but the volume
// controller) sent a provisioning event about the claim.
func answered(events []unstructured.Unstructured) bool {
	return slices.ContainsFunc(events, func(e unstructured.Unstructured) bool {
		reason, _, _ := unstructured.NestedString(e.Object, "reason")
		return strings.HasPrefix(reason, "Provisioning") && eventSource(&e) != volumeController
	})
}

// lastProvisioningFailure returns the message of the claim's latest
// ProvisioningFailed event, at most maxEventMessage bytes, or "".
func lastProvisioningFailure(events []unstructured.Unstructured) string {
	var msg, at string
	for i := range events {
		e := &events[i]
		reason, _, _ := unstructured.NestedString(e.Object, "reason")
		if when := eventTime(e); reason == "ProvisioningFailed" && when >= at {
			msg, _, _ = unstructured.NestedString(e.Object, "message")
			at = when
		}
	}
	msg = strings.TrimSpace(msg)
	if len(msg) > maxEventMessage {
		msg = msg[:maxEventMessage] + "…"
	}
	return msg
}

// eventSource is the component that reported an event.
func eventSource(e *unstructured.Unstructured) string {
	if c, _, _ := unstructured.NestedString(e.Object, "source", "component"); c != "" {
		return c
	}
	c, _, _ := unstructured.NestedString(e.Object, "reportingComponent")
	return c
}

// eventTime is when an event last happened, as an RFC 3339 string that
// sorts in time order.
func eventTime(e *unstructured.Unstructured) string {
	for _, field := range []string{"lastTimestamp", "eventTime", "firstTimestamp"} {
		if s, _, _ := unstructured.NestedString(e.Object, field); s != "" {
			return s
		}
	}
	return ""
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
