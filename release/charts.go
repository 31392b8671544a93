package release

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"

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

// discoverer gives charts the target cluster's capabilities, connecting on
// first use and reading discovery once. Its client is the session's.
type discoverer struct {
	r      *Release
	client *kube.Client
	caps   *chart.Capabilities
	err    error // the first failure: the cluster's, not the input's
}

func (d *discoverer) capabilities(ctx context.Context) (*chart.Capabilities, error) {
	if d.caps != nil || d.err != nil {
		return d.caps, d.err
	}
	if d.client == nil {
		if d.client, d.err = d.r.connectTarget(ctx); d.err != nil {
			return nil, d.err
		}
	}
	d.caps, d.err = chart.Discover(ctx, d.client.Discovery)
	if d.err != nil {
		d.err = classify(&kube.TargetError{Op: "discover the charts' capabilities from", Kubeconfig: d.r.spec.Target.Kubeconfig, Context: d.r.spec.Target.Context, Err: d.err})
	}
	return d.caps, d.err
}

// planCapabilities is what a plan records of caps: the Kubernetes version
// and the digest of the API versions; nil when no chart saw the cluster.
func planCapabilities(caps *chart.Capabilities) *plan.Capabilities {
	if caps == nil {
		return nil
	}
	sum := sha256.Sum256([]byte(strings.Join(caps.APIVersions, "\n")))
	return &plan.Capabilities{KubeVersion: caps.KubeVersion, APIVersions: "sha256:" + hex.EncodeToString(sum[:])}
}
