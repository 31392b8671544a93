package sandbox

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
)

// The kwokctl config binds everything to loopback, gives kwok the loopback
// node IP, enables port-forward and logs, and runs only cached binaries.
func TestRenderConfigIsLoopbackOnly(t *testing.T) {
	out, err := renderConfig(Binaries{Dir: "/cache/bin"}, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"kind: KwokctlConfiguration",
		"bindAddress: 127.0.0.1",
		"runtime: binary",
		"- PortForward\n  - Logs\n  - ClusterPortForward\n  - ClusterLogs",
		"kubeApiserverBinary: /cache/bin/kube-apiserver",
		"kwokControllerBinary: /cache/bin/kwok",
		"kubectlBinary: /cache/bin/kubectl",
		"etcdBinary: /cache/bin/etcd",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("renderConfig() lacks %q:\n%s", want, out)
		}
	}
}

// kwok is told the loopback node IP and to manage only the fake nodes, so a
// real node registered beside them stays the kubelet's.
func TestRenderConfigKwokManagesOnlyFakeNodes(t *testing.T) {
	out, err := renderConfig(Binaries{Dir: "/cache/bin"}, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	var cfg kwokctlConfig
	if err := yaml.Unmarshal(out, &cfg); err != nil {
		t.Fatalf("decode renderConfig(): %v\n%s", err, out)
	}
	want := componentPatch{Name: "kwok-controller", ExtraArgs: []extraArg{
		{Key: "node-ip", Value: "127.0.0.1", Override: true},
		{Key: "manage-all-nodes", Value: "false", Override: true},
		{Key: "manage-nodes-with-annotation-selector", Value: "kwok.x-k8s.io/node=fake"},
	}}
	if len(cfg.ComponentsPatches) == 0 {
		t.Fatalf("renderConfig() has no components patches:\n%s", out)
	}
	if diff := cmp.Diff(want, cfg.ComponentsPatches[0]); diff != "" {
		t.Errorf("renderConfig() kwok-controller patch (-want +got):\n%s", diff)
	}
}

// The controller-manager and scheduler get client rate flags added, and
// leader election turned off (not overridden: kwokctl passes none of
// them, and an override of a missing flag is dropped with a warning).
func TestRenderConfigRaisesClientRates(t *testing.T) {
	out, err := renderConfig(Binaries{Dir: "/cache/bin"}, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, component := range []string{"kube-controller-manager", "kube-scheduler"} {
		want := "- extraArgs:\n  - key: kube-api-qps\n    override: false\n    value: \"500\"\n  - key: kube-api-burst\n    override: false\n    value: \"1000\"\n  - key: leader-elect\n    override: false\n    value: \"false\"\n  name: " + component + "\n"
		if !strings.Contains(string(out), want) {
			t.Errorf("renderConfig() lacks the client rate of %s:\n%s", component, out)
		}
	}
}

// The API server's Service range holds thousands of Services and is apart
// from the real node's pods' subnets.
func TestRenderConfigSizesTheServiceRange(t *testing.T) {
	out, err := renderConfig(Binaries{Dir: "/cache/bin"}, nil, "/x/egress.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "key: service-cluster-ip-range\n    override: false\n    value: "+ServiceRange+"\n") {
		t.Errorf("renderConfig() does not pass --service-cluster-ip-range=%s:\n%s", ServiceRange, out)
	}
	r := netip.MustParsePrefix(ServiceRange)
	if r.Bits() > 16 || r.Overlaps(subnetPool) {
		t.Errorf("ServiceRange %s: want at most a /16, apart from the pods' pool %s", r, subnetPool)
	}
}
