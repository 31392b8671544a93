package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// The API server listens on 127.0.0.1, which a pod on the real node (in a
// network namespace of its own, on the sandbox's bridge) cannot reach. The
// API forwarder, an own component run by the agent's executable, listens on
// the bridge's host address only, at APIForwardPort, and copies each
// connection to the API server's loopback address, and nowhere else. TLS
// passes through it untouched: a pod verifies the API server's own
// certificate with its ServiceAccount's ca.crt.

// APIForwardPort is the port the API forwarder listens on, at the bridge's
// host address, which belongs to this sandbox alone.
const APIForwardPort = 6443

// APIServerName is a name the API server's serving certificate carries (kwokctl
// puts it there) for a pod's TLS client to verify against when it dials
// the forwarder by another name. The certificate of a sandbox started with
// a real node also carries the bridge's host address, so a client that
// dials that address (as rest.InClusterConfig does) needs no server name.
const APIServerName = "kubernetes"

// APIForwarderName is the API forwarder's own component name, as `sandbox
// status` lists it.
const APIForwarderName = "api-forwarder"

// maxForwardConns bounds the connections the forwarder copies at once; it
// closes further ones at once.
const maxForwardConns = 128

// forwardDialTimeout bounds the forwarder's dial of the API server.
const forwardDialTimeout = 5 * time.Second

// apiForwarderReadyFile is where the forwarder says it listens.
func (l Layout) apiForwarderReadyFile() string {
	return filepath.Join(l.OwnDir(), APIForwarderName+".ready")
}

// checkForward refuses a forwarder that would listen anywhere but an IPv4
// address of the pods' subnet pool, or forward anywhere but a loopback
// address.
func checkForward(listen, target string) error {
	l, err := netip.ParseAddrPort(listen)
	if err != nil || !l.Addr().Is4() || !subnetPool.Contains(l.Addr()) || l.Port() == 0 {
		return fmt.Errorf("--api-forward %q: want an address of the pods' subnet pool %s and a port", listen, subnetPool)
	}
	t, err := netip.ParseAddrPort(target)
	if err != nil || !t.Addr().IsLoopback() || t.Port() == 0 {
		return fmt.Errorf("--api-forward-to %q: want the API server's loopback address and port", target)
	}
	return nil
}

// runAPIForward listens on opts.APIForward and forwards to
// opts.APIForwardTo until ctx ends (see forwardConns), creating
// opts.ReadyFile once it listens.
func runAPIForward(ctx context.Context, opts AgentOptions) error {
	if err := checkForward(opts.APIForward, opts.APIForwardTo); err != nil {
		return fmt.Errorf("api forwarder: %w", err)
	}
	ln, err := net.Listen("tcp4", opts.APIForward)
	if err != nil {
		return fmt.Errorf("api forwarder: %w", err)
	}
	if opts.ReadyFile != "" {
		if err := writeFileAtomic(opts.ReadyFile, []byte("ready\n"), 0o644); err != nil {
			ln.Close()
			return fmt.Errorf("api forwarder: ready file: %w", err)
		}
	}
	fmt.Fprintf(os.Stderr, "api forwarder: %s -> %s\n", opts.APIForward, opts.APIForwardTo)
	return forwardConns(ctx, ln, opts.APIForwardTo, maxForwardConns)
}

// forwardConns accepts connections on ln until ctx ends and copies each, in
// both directions, to a connection to target, at most limit at once (one
// more is closed unanswered). It closes ln and every connection on return.
func forwardConns(ctx context.Context, ln net.Listener, target string, limit int) error {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		conns = map[net.Conn]bool{}
	)
	track := func(c net.Conn, add bool) {
		mu.Lock()
		defer mu.Unlock()
		if add {
			conns[c] = true
		} else {
			delete(conns, c)
		}
	}
	stop := context.AfterFunc(ctx, func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for c := range conns {
			c.Close()
		}
	})
	defer stop()
	slots := make(chan struct{}, limit)
	for {
		c, err := ln.Accept()
		if err != nil {
			ln.Close()
			wg.Wait()
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("api forwarder: %w", err)
		}
		select {
		case slots <- struct{}{}:
		default:
			c.Close()
			continue
		}
		track(c, true)
		wg.Go(func() {
			defer func() { <-slots }()
			defer track(c, false)
			forwardOne(ctx, c, target, track)
		})
	}
}

// forwardOne dials target and copies between it and c until both
// directions end, then closes both.
func forwardOne(ctx context.Context, c net.Conn, target string, track func(net.Conn, bool)) {
	defer c.Close()
	d := net.Dialer{Timeout: forwardDialTimeout}
	up, err := d.DialContext(ctx, "tcp", target)
	if err != nil {
		return
	}
	track(up, true)
	defer track(up, false)
	defer up.Close()
	var wg sync.WaitGroup
	wg.Go(func() { copyHalf(up, c) })
	copyHalf(c, up)
	wg.Wait()
}

// copyHalf copies src to dst, then ends dst's writing side (or closes it).
func copyHalf(dst, src net.Conn) {
	_, _ = io.Copy(dst, src)
	if cw, ok := dst.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
		return
	}
	dst.Close()
}

// apiServerAddr is host:port of the API server URL server, which must be on
// a loopback address.
func apiServerAddr(server string) (string, error) {
	u, err := url.Parse(server)
	if err != nil {
		return "", fmt.Errorf("API server URL %q: %w", server, err)
	}
	a, err := netip.ParseAddrPort(u.Host)
	if err != nil || !a.Addr().IsLoopback() {
		return "", fmt.Errorf("API server URL %q: want a loopback address and port", server)
	}
	return a.String(), nil
}

// startAPIForwarder starts the real node's API forwarder, on the bridge's
// host address of st's subnet, when the sandbox has an agent command (it
// runs the forwarder), records its address in the node state and waits
// until it listens.
func (s *Sandbox) startAPIForwarder(ctx context.Context, n realNode, st nodeState) error {
	if len(s.opts.Agent) == 0 {
		stepf(s.opts.Progress, "no agent command: pods on %s cannot reach the API server", RealNodeName)
		return nil
	}
	start := time.Now()
	subnet, err := netip.ParsePrefix(st.Subnet)
	if err != nil {
		return fmt.Errorf("pods' subnet %q: %w", st.Subnet, err)
	}
	cfg, err := RESTConfig(s.layout.kwokKubeconfig(), "")
	if err != nil {
		return fmt.Errorf("start %s: %w", APIForwarderName, err)
	}
	target, err := apiServerAddr(cfg.Host)
	if err != nil {
		return fmt.Errorf("start %s: %w", APIForwarderName, err)
	}
	st.APIForward = netip.AddrPortFrom(bridgeAddress(subnet).Addr(), APIForwardPort).String()
	if err := writeNodeState(n, st); err != nil {
		return err
	}
	ready := s.layout.apiForwarderReadyFile()
	if err := os.Remove(ready); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("start %s: %w", APIForwarderName, err)
	}
	opts := AgentOptions{Kubeconfig: s.layout.kwokKubeconfig(), VolumeDir: s.layout.VolumeDir(),
		ReadyFile: ready, APIForward: st.APIForward, APIForwardTo: target}
	pid, err := s.startOwn(ownComponent{Name: APIForwarderName, Path: s.opts.Agent[0],
		Args: append(slices.Clone(s.opts.Agent[1:]), opts.args()...)})
	if err != nil {
		return err
	}
	if err := s.waitOwnReady(ctx, APIForwarderName, pid, ready); err != nil {
		return err
	}
	stepf(s.opts.Progress, "pods reach the API server at https://%s (forwarded to %s; forwarder started in %s)",
		st.APIForward, target, time.Since(start).Round(time.Millisecond))
	return nil
}

// apiServerForPods is the pods' API server URL and TLS server name of a
// node state with a forwarder; "" for none.
func apiServerForPods(st nodeState) (string, string) {
	if st.APIForward == "" {
		return "", ""
	}
	return "https://" + st.APIForward, APIServerName
}

// APIServerEnv is the environment a container on the real node is given so
// that in-cluster clients (rest.InClusterConfig) dial the forwarder:
// KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT, which override the
// ones the kubelet sets. Nil when the node has no forwarder.
func (r RealNodeInfo) APIServerEnv() []corev1.EnvVar {
	u, err := url.Parse(r.APIServer)
	if r.APIServer == "" || err != nil {
		return nil
	}
	host, port, err := net.SplitHostPort(u.Host)
	if err != nil {
		return nil
	}
	if _, err := strconv.Atoi(port); err != nil {
		return nil
	}
	return []corev1.EnvVar{{Name: "KUBERNETES_SERVICE_HOST", Value: host}, {Name: "KUBERNETES_SERVICE_PORT", Value: port}}
}
