package sandbox

import (
	"strings"
	"testing"
)

// The kwokctl config binds everything to loopback, gives kwok the loopback
// node IP, enables port-forward and logs, and runs only cached binaries.
func TestRenderConfigIsLoopbackOnly(t *testing.T) {
	out, err := renderConfig(Binaries{Dir: "/cache/bin"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"kind: KwokctlConfiguration",
		"bindAddress: 127.0.0.1",
		"runtime: binary",
		"- key: node-ip\n    override: true\n    value: 127.0.0.1\n  name: kwok-controller",
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

// The controller-manager and scheduler get client rate flags added (not
// overridden: kwokctl passes none, and an override of a missing flag is
// dropped with a warning).
func TestRenderConfigRaisesClientRates(t *testing.T) {
	out, err := renderConfig(Binaries{Dir: "/cache/bin"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, component := range []string{"kube-controller-manager", "kube-scheduler"} {
		want := "- extraArgs:\n  - key: kube-api-qps\n    override: false\n    value: \"500\"\n  - key: kube-api-burst\n    override: false\n    value: \"1000\"\n  name: " + component + "\n"
		if !strings.Contains(string(out), want) {
			t.Errorf("renderConfig() lacks the client rate of %s:\n%s", component, out)
		}
	}
}
