package readiness

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// object builds an unstructured object; numbers must be int64, as the API
// server's JSON decodes them.
func newObject(apiVersion, kind string, generation int64, spec, status map[string]any) *unstructured.Unstructured {
	meta := map[string]any{"name": "x", "namespace": "ns"}
	if generation > 0 {
		meta["generation"] = generation
	}
	o := map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": meta}
	if spec != nil {
		o["spec"] = spec
	}
	if status != nil {
		o["status"] = status
	}
	return &unstructured.Unstructured{Object: o}
}

func cond(typ, status, reason, message string) map[string]any {
	return map[string]any{"type": typ, "status": status, "reason": reason, "message": message}
}

func conds(c ...map[string]any) []any {
	out := make([]any, len(c))
	for i := range c {
		out[i] = c[i]
	}
	return out
}

func deployment(generation int64, replicas any, status map[string]any) *unstructured.Unstructured {
	spec := map[string]any{"progressDeadlineSeconds": int64(600)}
	if replicas != nil {
		spec["replicas"] = replicas
	}
	return newObject("apps/v1", "Deployment", generation, spec, status)
}

func availableDeployment(replicas int64) map[string]any {
	return map[string]any{
		"observedGeneration": int64(1), "replicas": replicas, "updatedReplicas": replicas,
		"readyReplicas": replicas, "availableReplicas": replicas,
		"conditions": conds(
			cond("Available", "True", "MinimumReplicasAvailable", ""),
			cond("Progressing", "True", "NewReplicaSetAvailable", ""),
		),
	}
}

func TestCompute(t *testing.T) {
	rolling := availableDeployment(2)
	rolling["updatedReplicas"] = int64(1)
	deadline := availableDeployment(2)
	deadline["conditions"] = conds(cond("Progressing", "False", "ProgressDeadlineExceeded", "ReplicaSet web-1 has timed out progressing."))
	unavailable := availableDeployment(2)
	unavailable["readyReplicas"], unavailable["availableReplicas"] = int64(1), int64(1)

	tests := map[string]struct {
		obj  *unstructured.Unstructured
		want Status
	}{
		"an object that is missing is unknown": {nil, Unknown},
		"an available Deployment with all replicas updated and ready is current": {
			deployment(1, int64(2), availableDeployment(2)), Current},
		"a Deployment without spec.replicas counts one replica": {
			deployment(1, nil, availableDeployment(1)), Current},
		"a Deployment whose controller has not observed the latest generation is in progress": {
			deployment(2, int64(2), availableDeployment(2)), InProgress},
		"a new Deployment without observedGeneration is in progress": {
			deployment(1, int64(0), map[string]any{}), InProgress},
		"a Deployment rolling out is in progress": {
			deployment(1, int64(2), rolling), InProgress},
		"a Deployment with too few available replicas is in progress": {
			deployment(1, int64(2), unavailable), InProgress},
		"a Deployment past its progress deadline is failed": {
			deployment(1, int64(2), deadline), Failed},
		"a StatefulSet with all replicas ready on one revision is current": {
			newObject("apps/v1", "StatefulSet", 1, map[string]any{"replicas": int64(2)}, map[string]any{
				"observedGeneration": int64(1), "replicas": int64(2), "readyReplicas": int64(2),
				"currentReplicas": int64(2), "updatedReplicas": int64(2),
				"currentRevision": "web-1", "updateRevision": "web-1"}), Current},
		"a StatefulSet between revisions is in progress": {
			newObject("apps/v1", "StatefulSet", 1, map[string]any{"replicas": int64(2)}, map[string]any{
				"observedGeneration": int64(1), "replicas": int64(2), "readyReplicas": int64(2),
				"currentReplicas": int64(2), "updatedReplicas": int64(1),
				"currentRevision": "web-1", "updateRevision": "web-2"}), InProgress},
		"a StatefulSet with a replica not ready is in progress": {
			newObject("apps/v1", "StatefulSet", 1, map[string]any{"replicas": int64(2)}, map[string]any{
				"observedGeneration": int64(1), "replicas": int64(2), "readyReplicas": int64(1)}), InProgress},
		"a DaemonSet with every scheduled pod available is current": {
			newObject("apps/v1", "DaemonSet", 1, nil, map[string]any{
				"observedGeneration": int64(1), "desiredNumberScheduled": int64(3), "currentNumberScheduled": int64(3),
				"updatedNumberScheduled": int64(3), "numberAvailable": int64(3), "numberReady": int64(3)}), Current},
		"a DaemonSet with a pod not ready is in progress": {
			newObject("apps/v1", "DaemonSet", 1, nil, map[string]any{
				"observedGeneration": int64(1), "desiredNumberScheduled": int64(3), "currentNumberScheduled": int64(3),
				"updatedNumberScheduled": int64(3), "numberAvailable": int64(2), "numberReady": int64(2)}), InProgress},
		"a ReplicaSet with all replicas available is current": {
			newObject("apps/v1", "ReplicaSet", 1, map[string]any{"replicas": int64(2)}, map[string]any{
				"observedGeneration": int64(1), "replicas": int64(2), "fullyLabeledReplicas": int64(2),
				"readyReplicas": int64(2), "availableReplicas": int64(2)}), Current},
		"a ReplicaSet with no ready replica is in progress": {
			newObject("apps/v1", "ReplicaSet", 1, map[string]any{"replicas": int64(2)}, map[string]any{
				"observedGeneration": int64(1), "replicas": int64(2), "fullyLabeledReplicas": int64(2)}), InProgress},
		"a complete Job is current": {
			newObject("batch/v1", "Job", 1, nil, map[string]any{"succeeded": int64(1),
				"conditions": conds(cond("SuccessCriteriaMet", "True", "", ""), cond("Complete", "True", "", ""))}), Current},
		"a running Job is in progress": {
			newObject("batch/v1", "Job", 1, nil, map[string]any{"active": int64(1), "startTime": "2026-01-01T00:00:00Z"}), InProgress},
		"a Job that failed is failed": {
			newObject("batch/v1", "Job", 1, nil, map[string]any{"failed": int64(7),
				"conditions": conds(cond("Failed", "True", "BackoffLimitExceeded", "Job has reached the specified backoff limit"))}), Failed},
		"a CronJob is current": {
			newObject("batch/v1", "CronJob", 1, map[string]any{"schedule": "* * * * *"}, nil), Current},
		"a ready Pod is current": {
			newObject("v1", "Pod", 0, nil, map[string]any{"phase": "Running", "conditions": conds(cond("Ready", "True", "", ""))}), Current},
		"a running Pod that is not ready is in progress": {
			newObject("v1", "Pod", 0, nil, map[string]any{"phase": "Running", "conditions": conds(cond("Ready", "False", "ContainersNotReady", ""))}), InProgress},
		"a Pod that succeeded is current": {
			newObject("v1", "Pod", 0, nil, map[string]any{"phase": "Succeeded"}), Current},
		"a Pod that failed is failed": {
			newObject("v1", "Pod", 0, nil, map[string]any{"phase": "Failed", "reason": "Evicted"}), Failed},
		"a crash-looping Pod is failed": {
			newObject("v1", "Pod", 0, nil, map[string]any{"phase": "Running", "containerStatuses": []any{
				map[string]any{"name": "web", "state": map[string]any{"waiting": map[string]any{"reason": "CrashLoopBackOff"}}}}}), Failed},
		"an unschedulable Pod is in progress until the wait times out": {
			newObject("v1", "Pod", 0, nil, map[string]any{"phase": "Pending",
				"conditions": conds(cond("PodScheduled", "False", "Unschedulable", "0/1 nodes are available"))}), InProgress},
		"a bound PersistentVolumeClaim is current": {
			newObject("v1", "PersistentVolumeClaim", 0, nil, map[string]any{"phase": "Bound"}), Current},
		"a pending PersistentVolumeClaim is in progress": {
			newObject("v1", "PersistentVolumeClaim", 0, nil, map[string]any{"phase": "Pending"}), InProgress},
		"a ClusterIP Service is current": {
			newObject("v1", "Service", 0, map[string]any{"type": "ClusterIP", "clusterIP": "10.0.0.1"}, nil), Current},
		"a LoadBalancer Service without an ingress address is in progress": {
			newObject("v1", "Service", 0, map[string]any{"type": "LoadBalancer", "clusterIP": "10.0.0.1"}, map[string]any{}), InProgress},
		"a LoadBalancer Service with an ingress address is current": {
			newObject("v1", "Service", 0, map[string]any{"type": "LoadBalancer", "clusterIP": "10.0.0.1"}, map[string]any{
				"loadBalancer": map[string]any{"ingress": []any{map[string]any{"ip": "127.0.0.1"}}}}), Current},
		"an established CustomResourceDefinition is current": {
			newObject("apiextensions.k8s.io/v1", "CustomResourceDefinition", 1, nil, map[string]any{"conditions": conds(
				cond("NamesAccepted", "True", "NoConflicts", ""), cond("Established", "True", "InitialNamesAccepted", ""))}), Current},
		"a CustomResourceDefinition still installing is in progress": {
			newObject("apiextensions.k8s.io/v1", "CustomResourceDefinition", 1, nil, map[string]any{"conditions": conds(
				cond("NamesAccepted", "True", "NoConflicts", ""), cond("Established", "False", "Installing", ""))}), InProgress},
		"a CustomResourceDefinition whose names conflict is failed": {
			newObject("apiextensions.k8s.io/v1", "CustomResourceDefinition", 1, nil, map[string]any{"conditions": conds(
				cond("NamesAccepted", "False", "KindConflict", "kind Widget is already in use"))}), Failed},
		"an active Namespace is current": {
			newObject("v1", "Namespace", 0, nil, map[string]any{"phase": "Active"}), Current},
		"a terminating Namespace is in progress": {
			newObject("v1", "Namespace", 0, nil, map[string]any{"phase": "Terminating"}), InProgress},
		"a custom resource with Ready True is current": {
			newObject("example.com/v1", "Widget", 1, nil, map[string]any{"observedGeneration": int64(1),
				"conditions": conds(cond("Ready", "True", "", ""))}), Current},
		"a custom resource with Ready False is in progress": {
			newObject("example.com/v1", "Widget", 1, nil, map[string]any{"observedGeneration": int64(1),
				"conditions": conds(cond("Ready", "False", "Waiting", ""))}), InProgress},
		"a custom resource with a stale observedGeneration is in progress": {
			newObject("example.com/v1", "Widget", 3, nil, map[string]any{"observedGeneration": int64(2),
				"conditions": conds(cond("Ready", "True", "", ""))}), InProgress},
		"a custom resource that is Stalled is failed": {
			newObject("example.com/v1", "Widget", 1, nil, map[string]any{"observedGeneration": int64(1),
				"conditions": conds(cond("Stalled", "True", "BadSpec", "spec.size is negative"))}), Failed},
		"a ConfigMap is current": {
			newObject("v1", "ConfigMap", 0, nil, nil), Current},
		"an object without status rules or conditions is current": {
			newObject("example.com/v1", "Gadget", 1, nil, nil), Current},
		"a custom resource whose conditions are not a list is unknown": {
			newObject("example.com/v1", "Widget", 1, nil, map[string]any{"conditions": "broken"}), Unknown},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			got := Compute(tt.obj)
			if got.Status != tt.want {
				t.Errorf("Compute() = %+v, want status %s", got, tt.want)
			}
			if got.Message == "" {
				t.Errorf("Compute() = %+v, want a message", got)
			}
		})
	}
}

func TestComputeScheduledForDeletion(t *testing.T) {
	obj := deployment(1, int64(2), availableDeployment(2))
	obj.Object["metadata"].(map[string]any)["deletionTimestamp"] = "2026-01-01T00:00:00Z"
	want := Result{Status: InProgress, Message: "scheduled for deletion"}
	if diff := cmp.Diff(want, Compute(obj)); diff != "" {
		t.Errorf("Compute(deleting Deployment) mismatch (-want +got):\n%s", diff)
	}
	obj.SetFinalizers([]string{"example.com/keep", "example.com/backup"})
	want.Message = "deleting (finalizers: example.com/keep, example.com/backup): waits until their controllers remove them"
	if diff := cmp.Diff(want, Compute(obj)); diff != "" {
		t.Errorf("Compute(Deployment held by finalizers) mismatch (-want +got):\n%s", diff)
	}
}

func TestComputeMessages(t *testing.T) {
	tests := map[string]struct {
		obj  *unstructured.Unstructured
		want Result
	}{
		"a stale generation says which generations": {
			deployment(3, int64(2), availableDeployment(2)),
			Result{Status: InProgress, Message: "generation 3, observed 1"}},
		"a failed Job carries its condition": {
			newObject("batch/v1", "Job", 1, nil, map[string]any{
				"conditions": conds(cond("Failed", "True", "BackoffLimitExceeded", "Job has reached the specified backoff limit"))}),
			Result{Status: Failed, Message: "job failed: BackoffLimitExceeded: Job has reached the specified backoff limit"}},
		"an unschedulable pod carries the scheduler's message": {
			newObject("v1", "Pod", 0, nil, map[string]any{"phase": "Pending",
				"conditions": conds(cond("PodScheduled", "False", "Unschedulable", "0/1 nodes are available"))}),
			Result{Status: InProgress, Message: "pod not scheduled: Unschedulable: 0/1 nodes are available"}},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Compute(tt.obj)); diff != "" {
				t.Errorf("Compute() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// Only kinds no controller makes ready are ready for good, and only when
// Compute finds them current.
func TestReadyForGood(t *testing.T) {
	obj := func(apiVersion, kind string, extra map[string]any) *unstructured.Unstructured {
		m := map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": map[string]any{"name": "x", "namespace": "n"}}
		for k, v := range extra {
			m[k] = v
		}
		return &unstructured.Unstructured{Object: m}
	}
	deleting := obj("v1", "ConfigMap", nil)
	now := metav1.Now()
	deleting.SetDeletionTimestamp(&now)
	for _, c := range []struct {
		name string
		obj  *unstructured.Unstructured
		want bool
	}{
		{"a ConfigMap", obj("v1", "ConfigMap", nil), true},
		{"a ClusterRoleBinding", obj("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", nil), true},
		{"a ClusterIP Service", obj("v1", "Service", map[string]any{"spec": map[string]any{"type": "ClusterIP"}}), true},
		{"a LoadBalancer Service without an address", obj("v1", "Service", map[string]any{"spec": map[string]any{"type": "LoadBalancer"}}), false},
		{"a ConfigMap being deleted", deleting, false},
		{"a Deployment, however its status reads", obj("apps/v1", "Deployment", map[string]any{"status": map[string]any{"observedGeneration": int64(0)}}), false},
		{"a custom resource without status", obj("example.com/v1", "Widget", nil), false},
		{"nothing", nil, false},
	} {
		if got := ReadyForGood(c.obj); got != c.want {
			t.Errorf("ReadyForGood(%s) = %v; want %v", c.name, got, c.want)
		}
	}
}
