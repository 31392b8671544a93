package kube

import (
	"testing"

	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// connectSandbox connects to the running sandbox through Connect, as the CLI
// does, or skips (fails under CI=true) without one.
func connectSandbox(t *testing.T) (*Client, *sandboxtest.Sandbox) {
	t.Helper()
	sb := sandboxtest.Cluster(t)
	c, err := Connect(t.Context(), Options{Kubeconfig: sb.Kubeconfig, Context: sb.Context})
	if err != nil {
		t.Fatalf("Connect(sandbox): %v", err)
	}
	return c, sb
}
