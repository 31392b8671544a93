package chart

import (
	"context"
	"fmt"
	"slices"

	"k8s.io/client-go/discovery"
)

// Discover reads a cluster's capabilities from its discovery API with
// read-only GETs: its version and every group version it serves, with
// "group/version/Kind" for each of their kinds, as Helm's install sees
// them. A group that fails discovery is left out, as Helm leaves it.
func Discover(_ context.Context, d discovery.DiscoveryInterface) (*Capabilities, error) {
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
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	slices.Sort(out)
	return &Capabilities{KubeVersion: v.GitVersion, APIVersions: out}, nil
}
