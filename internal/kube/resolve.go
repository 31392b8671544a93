package kube

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"

	"github.com/pynenc/piceli/internal/object"
)

// Resource is where a declared object lives in the cluster's API.
type Resource struct {
	GVR        schema.GroupVersionResource
	Namespaced bool
}

// Resolve maps every declared object to its resource, index-aligned with
// objs (their origins name them in errors), through the cluster's
// discovery or, for kinds a CustomResourceDefinition in objs defines,
// through that CRD. It checks scope: a namespaced kind needs
// metadata.namespace, a cluster-scoped kind must not have one. Every
// failing object gives one *ResolveError, all joined; a group whose
// discovery failed (an aggregated API that is down) only fails the objects
// of that group. Resolve neither defaults namespaces nor reads objects.
func (c *Client) Resolve(ctx context.Context, objs []object.Declared) ([]Resource, error) {
	failed, err := c.discoveryFailures(ctx)
	if err != nil {
		return nil, fmt.Errorf("discover the API of context %q at %s: %w", c.ContextName, c.Server, err)
	}
	return resolve(objs, c.lookup(ctx, failed))
}

// discoveryFailures loads discovery into the cache and returns the group
// versions whose discovery failed; err is set only when discovery as a
// whole failed.
func (c *Client) discoveryFailures(ctx context.Context) (map[schema.GroupVersion]error, error) {
	var err error
	if dc, ok := c.Discovery.(discovery.DiscoveryInterfaceWithContext); ok {
		_, _, err = dc.ServerGroupsAndResourcesWithContext(ctx)
	} else {
		_, _, err = c.Discovery.ServerGroupsAndResources()
	}
	var partial *discovery.ErrGroupDiscoveryFailed
	if errors.As(err, &partial) {
		return partial.Groups, nil
	}
	return nil, err
}

// lookup answers from the cached discovery mapper, and names the failed
// discovery of the kind's group when there is one.
func (c *Client) lookup(ctx context.Context, failed map[schema.GroupVersion]error) lookupFunc {
	return func(gk schema.GroupKind) (map[string]Resource, error) {
		mappings, err := c.Mapper.RESTMappingsWithContext(ctx, gk)
		if err != nil && !meta.IsNoMatchError(err) {
			return nil, err
		}
		served := make(map[string]Resource, len(mappings))
		for _, m := range mappings {
			served[m.GroupVersionKind.Version] = Resource{
				GVR:        m.Resource,
				Namespaced: m.Scope.Name() == meta.RESTScopeNameNamespace,
			}
		}
		return served, groupFailure(gk.Group, failed)
	}
}

// groupFailure joins the discovery failures of group's versions, in version
// order.
func groupFailure(group string, failed map[schema.GroupVersion]error) error {
	var errs []error
	for _, gv := range slices.SortedFunc(maps.Keys(failed), compareGV) {
		if gv.Group == group {
			errs = append(errs, fmt.Errorf("discovery of %s failed: %w", gv, failed[gv]))
		}
	}
	return errors.Join(errs...)
}

func compareGV(a, b schema.GroupVersion) int {
	return strings.Compare(a.String(), b.String())
}
