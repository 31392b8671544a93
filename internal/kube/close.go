package kube

import (
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/client-go/rest"
)

// CloseIdle closes the client's idle connections to the API server, and
// with them the goroutines that read them. client-go keeps connections
// (and shares transports between clients of one configuration) for reuse;
// a long-lived process that is done with a target calls this so that
// nothing of it stays behind. The client still works afterwards.
func (c *Client) CloseIdle() {
	if c == nil || c.Config == nil {
		return
	}
	if rt, err := rest.TransportFor(c.Config); err == nil {
		utilnet.CloseIdleConnectionsFor(rt)
	}
}
