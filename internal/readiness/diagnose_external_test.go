package readiness

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func service(spec, status map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Service", "spec": spec}}
	if status != nil {
		u.Object["status"] = status
	}
	return u
}

func TestLoadBalancerLines(t *testing.T) {
	withAddress := map[string]any{"loadBalancer": map[string]any{"ingress": []any{map[string]any{"ip": "127.0.0.1"}}}}
	tests := map[string]struct {
		svc  *unstructured.Unstructured
		want []string
	}{
		"a ClusterIP Service needs no explanation":  {service(map[string]any{"type": "ClusterIP"}, nil), nil},
		"a LoadBalancer with an address needs none": {service(map[string]any{"type": "LoadBalancer"}, withAddress), nil},
		"a LoadBalancer without an address got none from any controller": {service(map[string]any{"type": "LoadBalancer"}, map[string]any{"loadBalancer": map[string]any{}}),
			[]string{"no load-balancer address was assigned: no load-balancer controller set status.loadBalancer.ingress (the cluster may run none)"}},
		"a LoadBalancer of a class got none from that class's controller": {service(map[string]any{"type": "LoadBalancer", "loadBalancerClass": "example.com/lb"}, nil),
			[]string{`no load-balancer address was assigned: no controller of load-balancer class "example.com/lb" set status.loadBalancer.ingress`}},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, loadBalancerLines(tt.svc)); diff != "" {
				t.Errorf("loadBalancerLines() (-want +got):\n%s", diff)
			}
		})
	}
}

// claim returns a Pending claim with spec and annotations;
// storageClassName is left out unless spec sets it.
func claim(spec map[string]any, annotations ...string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "PersistentVolumeClaim",
		"metadata": map[string]any{"name": "data", "namespace": "shop"},
		"spec":     spec, "status": map[string]any{"phase": "Pending"},
	}}
	if len(annotations) > 0 {
		m := map[string]string{}
		for i := 0; i+1 < len(annotations); i += 2 {
			m[annotations[i]] = annotations[i+1]
		}
		u.SetAnnotations(m)
	}
	return u
}

func storageClass(name, provisioner, mode string, isDefault bool) unstructured.Unstructured {
	u := unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "provisioner": provisioner,
		"volumeBindingMode": mode,
	}}
	u.SetName(name)
	if isDefault {
		u.SetAnnotations(map[string]string{"storageclass.kubernetes.io/is-default-class": "true"})
	}
	return u
}

// event returns an event about a claim from a component.
func event(reason, component, message, at string) unstructured.Unstructured {
	return unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Event", "reason": reason, "message": message,
		"source": map[string]any{"component": component}, "lastTimestamp": at,
	}}
}

func TestClaimDiagnosisSaysWhyNoProvisionerBoundTheClaim(t *testing.T) {
	fast := storageClass("fast", "example.com/ssd", "Immediate", false)
	local := storageClass("local", "example.com/local", "WaitForFirstConsumer", true)
	hostpath := storageClass("fast", "k8s.io/minikube-hostpath", "Immediate", false)
	const handed = "volume.kubernetes.io/storage-provisioner"
	waiting := event("ExternalProvisioning", "persistentvolume-controller", "Waiting for a volume to be created either by the external provisioner 'k8s.io/minikube-hostpath' or manually by the system administrator.", "2026-12-01T09:00:01Z")
	tests := map[string]struct {
		claim   *unstructured.Unstructured
		facts   claimFacts
		want    string
		problem bool
	}{
		"no class named, no class in the cluster": {claim(map[string]any{}), claimFacts{},
			"no provisioner bound the claim: it names no StorageClass and the cluster has no default StorageClass (it has none)", true},
		"no class named, classes but no default": {claim(map[string]any{}), claimFacts{Classes: []unstructured.Unstructured{fast, storageClass("archive", "example.com/tape", "Immediate", false)}},
			"no provisioner bound the claim: it names no StorageClass and the cluster has no default StorageClass (it has archive, fast)", true},
		"no class named, a default that waits for a pod": {claim(map[string]any{}), claimFacts{Classes: []unstructured.Unstructured{fast, local}},
			`no provisioner bound the claim: it names no StorageClass, and the default StorageClass "local" (provisioner example.com/local) has not provisioned a volume for it; that class binds a claim only once a pod using it is scheduled (volumeBindingMode WaitForFirstConsumer)`, false},
		"a class that does not exist": {claim(map[string]any{"storageClassName": "gold"}), claimFacts{Classes: []unstructured.Unstructured{fast}},
			`no provisioner bound the claim: its StorageClass "gold" does not exist (the cluster has fast)`, true},
		"a class that exists and provisions nothing yet": {claim(map[string]any{"storageClassName": "fast"}), claimFacts{Classes: []unstructured.Unstructured{fast, local}},
			`no provisioner bound the claim: its StorageClass "fast" (provisioner example.com/ssd) has not provisioned a volume for it`, false},
		"the empty class": {claim(map[string]any{"storageClassName": ""}), claimFacts{Classes: []unstructured.Unstructured{local}},
			`no provisioner bound the claim: it asks for no StorageClass (storageClassName ""), so only a PersistentVolume made beforehand can bind it, and none matching it has`, false},
		"a named volume": {claim(map[string]any{"volumeName": "pv-1", "storageClassName": "fast"}), claimFacts{Classes: []unstructured.Unstructured{fast}},
			`no provisioner bound the claim: it names PersistentVolume "pv-1", which has not bound it`, false},
		"the class named by the beta annotation, which Kubernetes reads first": {
			claim(map[string]any{"storageClassName": "local"}, BetaClassAnnotation, "gold"), claimFacts{Classes: []unstructured.Unstructured{fast, local}},
			`no provisioner bound the claim: its StorageClass "gold" does not exist (the cluster has fast, local)`, true},
		"handed to a provisioner nothing runs, a poll ago": {
			claim(map[string]any{}, BetaClassAnnotation, "fast", handed, "k8s.io/minikube-hostpath"),
			claimFacts{Classes: []unstructured.Unstructured{hostpath, local}, Events: []unstructured.Unstructured{waiting}, Waited: true},
			`StorageClass "fast" (provisioner k8s.io/minikube-hostpath): no provisioner is running for it in this cluster (the volume controller handed the claim to k8s.io/minikube-hostpath and nothing answered)`, true},
		"handed to a provisioner this very poll: it may yet answer": {
			claim(map[string]any{}, BetaClassAnnotation, "fast", handed, "k8s.io/minikube-hostpath"),
			claimFacts{Classes: []unstructured.Unstructured{hostpath}, Events: []unstructured.Unstructured{waiting}},
			`no provisioner bound the claim: its StorageClass "fast" (provisioner k8s.io/minikube-hostpath) has not provisioned a volume for it`, false},
		"handed to a provisioner that answered and is working": {
			claim(map[string]any{"storageClassName": "fast"}, handed, "k8s.io/minikube-hostpath"),
			claimFacts{Classes: []unstructured.Unstructured{hostpath}, Waited: true, Events: []unstructured.Unstructured{waiting,
				event("Provisioning", "k8s.io/minikube-hostpath_node-1_0c2d", `External provisioner is provisioning volume for claim "shop/data"`, "2026-12-01T09:00:02Z")}},
			`no provisioner bound the claim: its StorageClass "fast" (provisioner k8s.io/minikube-hostpath) has not provisioned a volume for it`, false},
		"a provisioner that failed, by its latest failure": {
			claim(map[string]any{}, handed, "example.com/local"),
			claimFacts{Classes: []unstructured.Unstructured{local}, Waited: true, Events: []unstructured.Unstructured{
				event("ProvisioningFailed", "example.com/local_node-1_9f1e", "disk full", "2026-12-01T09:00:09Z"),
				event("ProvisioningFailed", "example.com/local_node-1_9f1e", "quota exceeded", "2026-12-01T09:00:03Z")}},
			`StorageClass "local" (the default, as the claim names none; provisioner example.com/local): provisioning failed: disk full`, true},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			line, problem := claimDiagnosis(tt.claim, tt.facts)
			if diff := cmp.Diff(tt.want, line); diff != "" || problem != tt.problem {
				t.Errorf("claimDiagnosis() = %q, problem %v; want problem %v (-want +got line):\n%s", line, problem, tt.problem, diff)
			}
		})
	}
}

func TestClaimsOfNamesWhatAWorkloadWaitsOn(t *testing.T) {
	volumes := []any{map[string]any{"name": "cache", "emptyDir": map[string]any{}}, map[string]any{"name": "shared", "persistentVolumeClaim": map[string]any{"claimName": "uploads"}}}
	sts := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "apps/v1", "kind": "StatefulSet",
		"metadata": map[string]any{"name": "cassandra", "namespace": "db"},
		"spec": map[string]any{"replicas": int64(5), "template": map[string]any{"spec": map[string]any{"volumes": volumes}},
			"volumeClaimTemplates": []any{map[string]any{"metadata": map[string]any{"name": "data"}}}}}}
	pod := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Pod", "spec": map[string]any{"volumes": volumes}}}
	tests := map[string]struct {
		obj  *unstructured.Unstructured
		want []string
	}{
		"a claim waits on itself":                                  {claim(map[string]any{}), []string{"data"}},
		"a pod waits on the claims it mounts":                      {pod, []string{"uploads"}},
		"a StatefulSet waits on its mounts and its first 3 claims": {sts, []string{"uploads", "data-cassandra-0", "data-cassandra-1", "data-cassandra-2"}},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, claimsOf(tt.obj)); diff != "" {
				t.Errorf("claimsOf() (-want +got):\n%s", diff)
			}
		})
	}
}
