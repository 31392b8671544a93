package readiness

import (
	"fmt"
	"strings"

	"github.com/fluxcd/cli-utils/pkg/kstatus/status"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// rule computes the readiness of one kind where Piceli departs from or adds
// to kstatus.
type rule func(*unstructured.Unstructured) Result

// rules are keyed by "group/Kind" ("Kind" for the core group).
var rules = map[string]rule{
	"Pod":       podStatus,
	"Service":   serviceStatus,
	"Namespace": namespaceStatus,
	"batch/Job": jobStatus,
}

// controlledKinds always publish status.observedGeneration once their
// controller has seen them; until then they are in progress.
var controlledKinds = map[string]bool{
	"apps/Deployment":  true,
	"apps/StatefulSet": true,
	"apps/DaemonSet":   true,
	"apps/ReplicaSet":  true,
}

// Compute returns the readiness of obj following the kstatus rules
// (github.com/fluxcd/cli-utils kstatus), with these differences: a Pod that
// Failed is failed, a Job is current only once Complete, a LoadBalancer
// Service waits for an ingress address, a Namespace must be Active, an
// object scheduled for deletion is in progress, and an unscheduled pod is in
// progress whatever its age, so the result depends on obj alone. Numbers in
// obj must be int64 (decode YAML through apimachinery), as the API returns
// them. It does no I/O.
func Compute(obj *unstructured.Unstructured) Result {
	if obj == nil || obj.Object == nil {
		return Result{Status: Unknown, Message: "no object"}
	}
	if obj.GetDeletionTimestamp() != nil {
		return inProgress(Deleting(obj.GetFinalizers()))
	}
	key := kindKey(obj)
	if r, stale := generationStale(obj, controlledKinds[key]); stale {
		return r
	}
	if rule, ok := rules[key]; ok {
		return rule(obj)
	}
	return fromKstatus(obj)
}

// settledKinds are the kinds ("group/Kind", "Kind" for the core group)
// no controller makes ready: their readiness is settled by the object
// itself, as any write of it returns it.
var settledKinds = map[string]bool{
	"ConfigMap":                             true,
	"Secret":                                true,
	"ServiceAccount":                        true,
	"Service":                               true, // a LoadBalancer one computes in progress until it has an address
	"rbac.authorization.k8s.io/Role":        true,
	"rbac.authorization.k8s.io/RoleBinding": true,
	"rbac.authorization.k8s.io/ClusterRole": true,
	"rbac.authorization.k8s.io/ClusterRoleBinding": true,
}

// ReadyForGood reports whether obj, as a write returned it, is ready and
// stays so with no controller's help: a kind no controller makes ready
// (ConfigMap, Secret, ServiceAccount, Service, RBAC roles and bindings)
// that Compute finds current. Waiting for it would only read it again.
func ReadyForGood(obj *unstructured.Unstructured) bool {
	return obj != nil && obj.Object != nil && settledKinds[kindKey(obj)] && Compute(obj).Status == Current
}

// Deleting says that an object is being deleted and, when finalizers hold
// it, which: "scheduled for deletion", or "deleting (finalizers: a, b):
// waits until their controllers remove them".
func Deleting(finalizers []string) string {
	if len(finalizers) == 0 {
		return "scheduled for deletion"
	}
	return "deleting (finalizers: " + strings.Join(finalizers, ", ") + "): waits until their controllers remove them"
}

// kindKey returns "group/Kind", or "Kind" for the core group.
func kindKey(obj *unstructured.Unstructured) string {
	gvk := obj.GroupVersionKind()
	if gvk.Group == "" {
		return gvk.Kind
	}
	return gvk.Group + "/" + gvk.Kind
}

// generationStale reports an object whose controller has not yet observed
// its latest generation. required says a missing observedGeneration counts
// as not observed.
func generationStale(obj *unstructured.Unstructured, required bool) (Result, bool) {
	gen, hasGen, _ := unstructured.NestedInt64(obj.Object, "metadata", "generation")
	seen, hasSeen, _ := unstructured.NestedInt64(obj.Object, "status", "observedGeneration")
	switch {
	case !hasGen:
		return Result{}, false
	case !hasSeen && required:
		return inProgress(fmt.Sprintf("generation %d not yet observed", gen)), true
	case hasSeen && seen != gen:
		return inProgress(fmt.Sprintf("generation %d, observed %d", gen, seen)), true
	}
	return Result{}, false
}

// fromKstatus maps kstatus's answer to a Result.
func fromKstatus(obj *unstructured.Unstructured) Result {
	res, err := status.Compute(obj)
	if err != nil {
		return Result{Status: Unknown, Message: err.Error()}
	}
	msg := kstatusMessage(res)
	switch res.Status {
	case status.CurrentStatus:
		return current(msg)
	case status.FailedStatus:
		return failed(msg)
	case status.InProgressStatus, status.TerminatingStatus, status.NotFoundStatus:
		return inProgress(msg)
	}
	return Result{Status: Unknown, Message: msg}
}

// kstatusMessage returns kstatus's message, else the reason of its first
// condition, else its status: a Ready=False condition may carry neither.
func kstatusMessage(res *status.Result) string {
	if res.Message != "" {
		return res.Message
	}
	for _, c := range res.Conditions {
		if c.Reason != "" {
			return c.Reason
		}
	}
	return "status " + res.Status.String()
}
