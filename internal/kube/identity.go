package kube

import (
	"context"
	"fmt"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"
	"k8s.io/client-go/discovery"
)

// Identity names the cluster a plan is bound to. ClusterUID survives a change
// of server URL or context name; Server and Context record how it was
// reached.
type Identity struct {
	Server     string `json:"server"`
	Context    string `json:"context"`
	ClusterUID string `json:"clusterUID"` // UID of the kube-system Namespace
	Version    string `json:"version"`    // the server's gitVersion, e.g. v1.34.1
}

var namespaces = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}

// Identity reads the target's identity: the cluster UID as ClusterUID
// keeps it (one request for the client's life) and the server version
// (one request each call). An error reading kube-system because it is
// forbidden or absent matches ErrTarget; transport errors are returned
// wrapped as they are.
func (c *Client) Identity(ctx context.Context) (Identity, error) {
	uid, err := c.ClusterUID(ctx)
	if err != nil {
		return Identity{}, err
	}
	version, err := c.serverVersion(ctx)
	if err != nil {
		return Identity{}, err
	}
	return Identity{Server: c.Server, Context: c.ContextName, ClusterUID: uid, Version: version}, nil
}

// clusterUID reads the UID of the kube-system Namespace.
func (c *Client) clusterUID(ctx context.Context) (string, error) {
	ns, err := c.Dynamic.Resource(namespaces).Get(ctx, metav1.NamespaceSystem, metav1.GetOptions{})
	switch {
	case apierrors.IsForbidden(err), apierrors.IsUnauthorized(err):
		return "", c.identityError(fmt.Errorf("read Namespace/kube-system (the plan needs get on namespaces/kube-system): %w", err))
	case apierrors.IsNotFound(err):
		return "", c.identityError(fmt.Errorf("read Namespace/kube-system: %w", err))
	case err != nil:
		return "", fmt.Errorf("identify the cluster of context %q at %s: read Namespace/kube-system: %w", c.ContextName, c.Server, err)
	}
	return string(ns.GetUID()), nil
}

// serverVersion reads the server's gitVersion.
func (c *Client) serverVersion(ctx context.Context) (string, error) {
	var (
		info *version.Info
		err  error
	)
	if dc, ok := c.Discovery.(discovery.DiscoveryInterfaceWithContext); ok {
		info, err = dc.ServerVersionWithContext(ctx)
	} else {
		info, err = c.Discovery.ServerVersion()
	}
	if err != nil {
		return "", fmt.Errorf("identify the cluster of context %q at %s: read server version: %w", c.ContextName, c.Server, err)
	}
	return info.GitVersion, nil
}

// identityError marks err as making the target unusable.
func (c *Client) identityError(err error) error {
	return &TargetError{Op: "identify the cluster of", Kubeconfig: c.kubeconfig, Context: c.ContextName, Err: err}
}

// uidMemo keeps a client's cluster UID once read.
type uidMemo struct {
	mu  sync.Mutex
	uid string
}

// ClusterUID returns the cluster's identity alone: the UID of the
// kube-system Namespace. The first successful read is kept for the
// client's life (one server, one cluster), so callers that bind many
// writes to the cluster pay one request. Errors are those of Identity.
func (c *Client) ClusterUID(ctx context.Context) (string, error) {
	if c.uid == nil {
		return c.clusterUID(ctx)
	}
	c.uid.mu.Lock()
	defer c.uid.mu.Unlock()
	if c.uid.uid == "" {
		uid, err := c.clusterUID(ctx)
		if err != nil {
			return "", err
		}
		c.uid.uid = uid
	}
	return c.uid.uid, nil
}
