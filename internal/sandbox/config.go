package sandbox

import (
	"fmt"

	"sigs.k8s.io/yaml"
)

// LoopbackIP is the only address the sandbox listens on and gives to nodes.
const LoopbackIP = "127.0.0.1"

// kwokCRDs are the kwok resources enabled in every sandbox: port-forward and
// logs, per pod and cluster-wide.
var kwokCRDs = []string{"PortForward", "Logs", "ClusterPortForward", "ClusterLogs"}

// kwokctlConfig is the subset of kwokctl's KwokctlConfiguration we write.
type kwokctlConfig struct {
	APIVersion        string           `json:"apiVersion"`
	Kind              string           `json:"kind"`
	Options           kwokctlOptions   `json:"options"`
	ComponentsPatches []componentPatch `json:"componentsPatches"`
}

type kwokctlOptions struct {
	Runtime                     string   `json:"runtime"`
	BindAddress                 string   `json:"bindAddress"`
	EnableCRDs                  []string `json:"enableCRDs"`
	QuietPull                   bool     `json:"quietPull"`
	EtcdBinary                  string   `json:"etcdBinary"`
	KubeApiserverBinary         string   `json:"kubeApiserverBinary"`
	KubeControllerManagerBinary string   `json:"kubeControllerManagerBinary"`
	KubeSchedulerBinary         string   `json:"kubeSchedulerBinary"`
	KubectlBinary               string   `json:"kubectlBinary"`
	KwokControllerBinary        string   `json:"kwokControllerBinary"`
	// KubeApiserverCertSANs are names and addresses kwokctl adds to the
	// API server's serving certificate, beside its own (localhost,
	// 127.0.0.1, kubernetes, …).
	KubeApiserverCertSANs []string `json:"kubeApiserverCertSANs,omitempty"`
}

type componentPatch struct {
	Name      string     `json:"name"`
	ExtraArgs []extraArg `json:"extraArgs"`
}

type extraArg struct {
	Key      string `json:"key"`
	Value    string `json:"value"`
	Override bool   `json:"override"`
}

// ServiceRange is the sandbox's Service ClusterIP range: 65,534 addresses,
// so a test may hold thousands of Services (kube-apiserver's default,
// 10.0.0.0/24, is full after 254). No kube-proxy serves these addresses
// and nothing routes them: pods reach the API server through the
// forwarder (APIForwardPort) and the API server's own connections go
// through the egress proxy, which refuses them. It must not overlap the
// real node's pods' subnets (subnetPool).
const ServiceRange = "10.96.0.0/16"

// clientRate raises a component's API client rate limit and turns its
// leader election off. kwokctl adds the flags (Override false): it passes
// none of them. A sandbox runs one of each component, so electing a leader
// protects nothing, and it was fatal: on a loaded machine a lease renewal
// that took over 5 s made the controller-manager and the scheduler exit,
// leaving namespaces Terminating for good (a benchmark's Helm install of
// 1,000 ConfigMaps did it).
func clientRate(component string) componentPatch {
	return componentPatch{Name: component, ExtraArgs: []extraArg{
		{Key: "kube-api-qps", Value: "500"}, {Key: "kube-api-burst", Value: "1000"}, {Key: "leader-elect", Value: "false"},
	}}
}

// renderConfig returns the kwokctl configuration for a sandbox using bins:
// binary runtime, every component bound to 127.0.0.1, the kwok controller
// reporting 127.0.0.1 as node IP and managing only the nodes annotated
// KwokNodeAnnotation=fake, and port-forward and logs CRDs enabled,
// followed by stages as further YAML documents. kwokctl loads only those
// stages once any is given, so they must include kwok's defaults (see
// sandboxStages). kube-apiserver reads the egress selector configuration
// egressConfig (see EgressConfig) unless it is "". Its serving
// certificate also carries certSANs (the real node's bridge address, which
// the pods dial: see APIForwardPort).
func renderConfig(bins Binaries, stages []stage, egressConfig string, certSANs ...string) ([]byte, error) {
	cfg := kwokctlConfig{
		APIVersion: "config.kwok.x-k8s.io/v1alpha1",
		Kind:       "KwokctlConfiguration",
		Options: kwokctlOptions{
			Runtime:                     "binary",
			BindAddress:                 LoopbackIP,
			EnableCRDs:                  kwokCRDs,
			QuietPull:                   true,
			EtcdBinary:                  bins.Path(BinEtcd),
			KubeApiserverBinary:         bins.Path(BinKubeAPIServer),
			KubeControllerManagerBinary: bins.Path(BinKubeControllerManager),
			KubeSchedulerBinary:         bins.Path(BinKubeScheduler),
			KubectlBinary:               bins.Path(BinKubectl),
			KwokControllerBinary:        bins.Path(BinKwok),
			KubeApiserverCertSANs:       certSANs,
		},
		ComponentsPatches: []componentPatch{{
			Name: "kwok-controller",
			ExtraArgs: []extraArg{
				{Key: "node-ip", Value: LoopbackIP, Override: true},
				// Only the fake nodes, from the start: kwok managing every
				// node would take over a real one (its addresses, lease and
				// pods), and restarting kwok later leaves fake pods Pending.
				{Key: "manage-all-nodes", Value: "false", Override: true},
				{Key: "manage-nodes-with-annotation-selector", Value: KwokNodeAnnotation + "=fake"},
			},
		},
			// The default 20 requests a second let 300 one-replica
			// Deployments take 70 s to become Available; at 500, 18 s.
			clientRate("kube-controller-manager"), clientRate("kube-scheduler"),
		},
	}
	// (kwokctl applies every patch naming a component, in order.)
	cfg.ComponentsPatches = append(cfg.ComponentsPatches, componentPatch{Name: "kube-apiserver", ExtraArgs: []extraArg{
		{Key: "service-cluster-ip-range", Value: ServiceRange}, // added: kwokctl passes none
	}})
	if egressConfig != "" {
		cfg.ComponentsPatches = append(cfg.ComponentsPatches, componentPatch{Name: "kube-apiserver", ExtraArgs: []extraArg{
			{Key: "egress-selector-config-file", Value: egressConfig}, // added: kwokctl passes none
		}})
	}
	out, err := yaml.Marshal(cfg)
	if err != nil {
		return nil, fmt.Errorf("render kwokctl config: %w", err)
	}
	for _, s := range stages {
		doc, err := yaml.Marshal(s)
		if err != nil {
			return nil, fmt.Errorf("render kwok stage %q: %w", stageName(s), err)
		}
		out = append(append(out, "---\n"...), doc...)
	}
	return out, nil
}
