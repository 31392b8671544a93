package access_test

import (
	"context"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/pynenc/piceli/internal/access"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// Forward reaches a ready pod behind a Service port (its target port named
// by the pod's container) or one pod's port from an ephemeral port on
// 127.0.0.1, for as long as the caller holds it: stop leaves nothing
// listening and no goroutine behind.
func TestForwardLastsForTheCall(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	ns := sb.Namespace(t)
	service(t, sb, ns, "registry")
	token := pod(t, sb, ns, "registry", "registry-0")
	for _, target := range []string{"service/registry:80", "pod/registry-0:8080"} {
		t.Run(target, func(t *testing.T) {
			tg, err := access.ParseTarget(target)
			if err != nil {
				t.Fatal(err)
			}
			sb.CloseIdleConnections()
			before := runtime.NumGoroutine()
			local, stop, err := access.Forward(sandboxtest.Context(t, time.Minute), sb.RESTConfig, sb.Clientset, ns, tg, access.Options{})
			if err != nil {
				t.Fatalf("Forward(%s) error = %v", target, err)
			}
			if !local.Addr().IsLoopback() || local.Port() == 0 {
				t.Errorf("Forward(%s) = %s, want an ephemeral port on loopback", target, local)
			}
			if body, err := get("http://" + local.String() + "/"); err != nil || body != token {
				t.Errorf("GET through Forward(%s) = %q, %v; want the pod's token %q", target, body, err, token)
			}
			stop()
			sb.CloseIdleConnections()
			if c, err := net.DialTimeout("tcp", local.String(), time.Second); err == nil {
				c.Close()
				t.Errorf("%s still accepts connections after stop", local)
			}
			sandboxtest.GoroutinesBack(t, before, "stop")
		})
	}
}

// Forward to a Service with no ready pod fails when ctx ends, naming the
// Service and why, and leaves nothing listening.
func TestForwardNamesAServiceWithoutPods(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	ns := sb.Namespace(t)
	service(t, sb, ns, "registry")
	ctx, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	_, stop, err := access.Forward(ctx, sb.RESTConfig, sb.Clientset, ns, access.Target{Kind: access.KindService, Name: "registry", Port: 80}, access.Options{})
	if err == nil || stop != nil || !strings.Contains(err.Error(), "Service/"+ns+"/registry: no ready pod") {
		t.Fatalf("Forward() error = %v, want it to name the Service and say it has no ready pod", err)
	}
}
