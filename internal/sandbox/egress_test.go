package sandbox

import (
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"sigs.k8s.io/yaml"
)

// kube-apiserver is told to read the egress selector configuration, which
// sends "cluster" and "controlplane" through the proxy's socket.
func TestRenderConfigSendsAPIServerEgressThroughTheProxy(t *testing.T) {
	out, err := renderConfig(Binaries{Dir: "/cache/bin"}, nil, "/sb/kwok/x.egress.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var kc kwokctlConfig
	if err := yaml.Unmarshal(out, &kc); err != nil {
		t.Fatal(err)
	}
	want := componentPatch{Name: "kube-apiserver", ExtraArgs: []extraArg{{Key: "egress-selector-config-file", Value: "/sb/kwok/x.egress.yaml"}}}
	if !slices.ContainsFunc(kc.ComponentsPatches, func(p componentPatch) bool { return reflect.DeepEqual(p, want) }) {
		t.Errorf("renderConfig() does not give kube-apiserver the egress selector config:\n%s", out)
	}
	raw, err := renderEgressConfig("/run/piceli/0123abcd/egress.sock")
	if err != nil {
		t.Fatal(err)
	}
	var cfg egressSelectorConfig
	if err := yaml.UnmarshalStrict(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.APIVersion != "apiserver.k8s.io/v1beta1" || cfg.Kind != "EgressSelectorConfiguration" || len(cfg.EgressSelections) != 2 {
		t.Fatalf("egress selector config:\n%s", raw)
	}
	for i, name := range []string{"cluster", "controlplane"} {
		sel := cfg.EgressSelections[i]
		if sel.Name != name || sel.Connection.ProxyProtocol != "HTTPConnect" || sel.Connection.Transport.UDS.UDSName != "/run/piceli/0123abcd/egress.sock" {
			t.Errorf("selection %d = %+v; want %s through HTTPConnect on the socket", i, sel, name)
		}
	}
}

// The proxy allows loopback, and the real node's pods' subnet once its state
// file records one; nothing else.
func TestEgressAllowsLoopbackAndThePodsSubnetOnly(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state.json")
	allow := egressAllows(state)
	check := func(addr string, want bool) {
		t.Helper()
		if got := allow(netip.MustParseAddr(addr)); got != want {
			t.Errorf("allow(%s) = %v; want %v", addr, got, want)
		}
	}
	check("127.0.0.1", true)
	check("127.3.4.5", true)
	check("::1", true)
	check("10.213.7.9", false) // no node yet
	if err := os.WriteFile(state, []byte(`{"subnet":"10.213.7.0/24","bridge":"pcl0"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	check("10.213.7.9", true)
	check("10.213.8.9", false)
	check("10.0.0.1", false)
	check("192.168.1.1", false)
	check("169.254.169.254", false)
	check("8.8.8.8", false)
	check("2001:4860:4860::8888", false)
	// A state file naming a subnet outside the sandbox's pool opens nothing.
	if err := os.WriteFile(state, []byte(`{"subnet":"0.0.0.0/0"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	check("8.8.8.8", false)
	if egressAllows("")(netip.MustParseAddr("10.213.7.9")) {
		t.Error("without a node state file the pods' pool is allowed")
	}
}
