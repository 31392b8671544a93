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

// claim returns a Pending claim with spec; storageClassName is left out
// unless spec sets it.
func claim(spec map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "PersistentVolumeClaim",
		"metadata": map[string]any{"name": "data", "namespace": "shop"},
		"spec":     spec, "status": map[string]any{"phase": "Pending"},
	}}
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

func TestClaimLinesSayWhyNoProvisionerBoundTheClaim(t *testing.T) {
	fast := storageClass("fast", "example.com/ssd", "Immediate", false)
	local := storageClass("local", "example.com/local", "WaitForFirstConsumer", true)
	tests := map[string]struct {
		claim   *unstructured.Unstructured
		classes []unstructured.Unstructured
		want    string
	}{
		"no class named, no class in the cluster": {claim(map[string]any{}), nil,
			"no provisioner bound the claim: it names no StorageClass and the cluster has no default StorageClass (it has none)"},
		"no class named, classes but no default": {claim(map[string]any{}), []unstructured.Unstructured{fast, storageClass("archive", "example.com/tape", "Immediate", false)},
			"no provisioner bound the claim: it names no StorageClass and the cluster has no default StorageClass (it has archive, fast)"},
		"no class named, a default that waits for a pod": {claim(map[string]any{}), []unstructured.Unstructured{fast, local},
			`no provisioner bound the claim: it names no StorageClass, and the default StorageClass "local" (provisioner example.com/local) has not provisioned a volume for it; that class binds a claim only once a pod using it is scheduled (volumeBindingMode WaitForFirstConsumer)`},
		"a class that does not exist": {claim(map[string]any{"storageClassName": "gold"}), []unstructured.Unstructured{fast},
			`no provisioner bound the claim: its StorageClass "gold" does not exist (the cluster has fast)`},
		"a class that exists and provisions nothing": {claim(map[string]any{"storageClassName": "fast"}), []unstructured.Unstructured{fast, local},
			`no provisioner bound the claim: its StorageClass "fast" (provisioner example.com/ssd) has not provisioned a volume for it`},
		"the empty class": {claim(map[string]any{"storageClassName": ""}), []unstructured.Unstructured{local},
			`no provisioner bound the claim: it asks for no StorageClass (storageClassName ""), so only a PersistentVolume made beforehand can bind it, and none matching it has`},
		"a named volume": {claim(map[string]any{"volumeName": "pv-1", "storageClassName": "fast"}), []unstructured.Unstructured{fast},
			`no provisioner bound the claim: it names PersistentVolume "pv-1", which has not bound it`},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff([]string{tt.want}, claimLines(tt.claim, tt.classes)); diff != "" {
				t.Errorf("claimLines() (-want +got):\n%s", diff)
			}
		})
	}
}
