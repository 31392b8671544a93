package release

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"k8s.io/client-go/discovery"

	"github.com/pynenc/piceli/internal/compose/chart"
	"github.com/pynenc/piceli/internal/kube"
	"github.com/pynenc/piceli/internal/secret"
	"github.com/pynenc/piceli/internal/wire"
	"github.com/pynenc/piceli/plan"
)

// ChartSeedSecret is the entry of the release's private secret store that
// holds the seed of its charts' random template functions (randAlphaNum,
// uuidv4, ...): generated on the first plan that renders a chart, stored
// with the plan, and kept, so the release renders the same values on every
// plan and nobody without the store can derive them.
const ChartSeedSecret = "piceli.chart-seed"

// chartSeedDecl declares the seed: 64 generated characters.
var chartSeedDecl = wire.SecretInfo{Name: ChartSeedSecret, Keys: []wire.SecretKeyInfo{{Key: "seed", Source: wire.SourceGenerated, Length: 64}}}

// chartSeed returns the release's chart seed from its store, or a new one
// (not saved) when it has none.
func (r *Release) chartSeed(ctx context.Context) (*secret.Version, bool, error) {
	res := secret.Resolver{Store: secret.View(r.StateDir())}
	return res.Resolve(ctx, chartSeedDecl, secret.ResolveOptions{DryRun: true})
}

// checkReserved refuses a declared secret named ChartSeedSecret: its
// versions would mix with the seed's.
func checkReserved(declared []wire.SecretInfo) error {
	for _, d := range declared {
		if d.Name == ChartSeedSecret {
			return refusef("secret %q: the name is reserved for the seed of the release's charts; rename the secret", d.Name)
		}
	}
	return nil
}

// discoverer gives charts the target cluster's capabilities, connecting on
// first use and reading discovery once. Its client is the session's.
type discoverer struct {
	r      *Release
	client *kube.Client
	caps   *chart.Capabilities
	err    error // the first failure: the cluster's, not the input's
	// before, when not nil, is called before the first connection; its
	// error is the discoverer's (Release.openAfter).
	before func() error
}

func (d *discoverer) capabilities(ctx context.Context) (*chart.Capabilities, error) {
	if d.caps != nil || d.err != nil {
		return d.caps, d.err
	}
	if d.before != nil {
		if d.err = d.before(); d.err != nil {
			return nil, d.err
		}
	}
	if d.client == nil {
		if d.client, d.err = d.r.connectTarget(ctx); d.err != nil {
			return nil, d.err
		}
	}
	d.caps, d.err = discover(d.client.Discovery)
	if d.err != nil {
		d.err = classify(&kube.TargetError{Op: "discover the charts' capabilities from", Kubeconfig: d.r.spec.Target.Kubeconfig, Context: d.r.spec.Target.Context, Err: d.err})
	}
	return d.caps, d.err
}

// planCapabilities is what a plan records of caps, the Kubernetes
// version (plan.Capabilities says why not the API versions); nil when no
// chart saw the cluster.
func planCapabilities(caps *chart.Capabilities) *plan.Capabilities {
	if caps == nil {
		return nil
	}
	return &plan.Capabilities{KubeVersion: caps.KubeVersion}
}

// discover reads a cluster's capabilities from its discovery API with
// read-only GETs: its version and every group version it serves, with
// "group/version/Kind" for each of their kinds, as Helm's install sees
// them. A group that fails discovery is left out, as Helm leaves it. It
// lives here, not in the chart package, so that the composition loader
// links no cluster client.
func discover(d discovery.DiscoveryInterface) (*chart.Capabilities, error) {
	v, err := d.ServerVersion()
	if err != nil {
		return nil, fmt.Errorf("read the cluster's Kubernetes version: %w", err)
	}
	groups, resources, err := d.ServerGroupsAndResources()
	if err != nil && !discovery.IsGroupDiscoveryFailedError(err) {
		return nil, fmt.Errorf("read the cluster's API versions: %w", err)
	}
	set := map[string]bool{}
	for _, g := range groups {
		for _, gv := range g.Versions {
			set[gv.GroupVersion] = true
		}
	}
	for _, r := range resources {
		for _, res := range r.APIResources {
			set[r.GroupVersion+"/"+res.Kind] = true
		}
	}
	return &chart.Capabilities{KubeVersion: v.GitVersion, APIVersions: slices.Sorted(maps.Keys(set))}, nil
}
