package access

import (
	"context"
	"fmt"
	"net/http"

	"k8s.io/apimachinery/pkg/util/httpstream"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/portforward"
	"k8s.io/client-go/transport/spdy"
)

// dialPod opens a port-forward connection to namespace/pod through the API
// server: SPDY tunnelled over a websocket, or plain SPDY when the server
// (or a proxy before it) refuses the websocket upgrade, as kubectl does.
// Streams for any port of the pod are created on the one connection.
//
// client-go's dialers take no context, so the dial runs on a goroutine of
// its own and dialPod returns when ctx ends (an interrupted command must
// end within its grace, however slow the API server is to answer); a
// connection that arrives after that is closed.
func dialPod(ctx context.Context, cfg *rest.Config, cs kubernetes.Interface, namespace, pod string) (httpstream.Connection, error) {
	type dialed struct {
		conn httpstream.Connection
		err  error
	}
	out := make(chan dialed, 1)
	go func() {
		conn, err := dialPodNow(cfg, cs, namespace, pod)
		out <- dialed{conn, err}
	}()
	select {
	case d := <-out:
		return d.conn, d.err
	case <-ctx.Done():
		go func() {
			if d := <-out; d.conn != nil {
				d.conn.Close()
			}
		}()
		return nil, fmt.Errorf("port-forward Pod/%s/%s: %w", namespace, pod, context.Cause(ctx))
	}
}

// dialPodNow is dialPod's dial, which nothing interrupts.
func dialPodNow(cfg *rest.Config, cs kubernetes.Interface, namespace, pod string) (httpstream.Connection, error) {
	url := cs.CoreV1().RESTClient().Post().Resource("pods").Namespace(namespace).Name(pod).SubResource("portforward").URL()
	transport, upgrader, err := spdy.RoundTripperFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("port-forward Pod/%s/%s: %w", namespace, pod, err)
	}
	spdyDialer := spdy.NewDialer(upgrader, &http.Client{Transport: transport}, http.MethodPost, url)
	wsDialer, err := portforward.NewSPDYOverWebsocketDialer(url, cfg)
	if err != nil {
		return nil, fmt.Errorf("port-forward Pod/%s/%s: %w", namespace, pod, err)
	}
	dialer := portforward.NewFallbackDialer(wsDialer, spdyDialer, func(err error) bool {
		return httpstream.IsUpgradeFailure(err) || httpstream.IsHTTPSProxyError(err)
	})
	conn, protocol, err := dialer.Dial(portforward.PortForwardProtocolV1Name)
	if err != nil {
		return nil, fmt.Errorf("port-forward Pod/%s/%s: %w", namespace, pod, err)
	}
	if protocol != portforward.PortForwardProtocolV1Name {
		conn.Close()
		return nil, fmt.Errorf("port-forward Pod/%s/%s: the server speaks %q, not %q", namespace, pod, protocol, portforward.PortForwardProtocolV1Name)
	}
	return conn, nil
}
