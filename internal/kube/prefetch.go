package kube

import (
	"context"
	"sync"
)

// Prefetch starts reading what every plan reads first, the cluster UID
// (ClusterUID) and the API's discovery (Resolve), into the client's
// caches, and returns a function that waits for those reads to end. A
// caller with other work to do before it plans (reading its state
// directory, say) overlaps the round trips with that work. Errors are not
// kept: a read that failed is made again by the call that needs it, which
// reports it. The reads end when ctx does.
func (c *Client) Prefetch(ctx context.Context) (wait func()) {
	var g sync.WaitGroup
	g.Go(func() { c.ClusterUID(ctx) })
	g.Go(func() { c.discoveryFailures(ctx) })
	return g.Wait
}
