package sandbox_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pynenc/piceli/internal/sandbox"
)

// A second Up of a healthy sandbox starts nothing: same processes, same
// server, reported as reused.
func TestUpTwiceIsIdempotent(t *testing.T) {
	sb := openExtra(t)
	first := up(t, sb)
	if first.Reused {
		t.Fatalf("first Up reported Reused; want a fresh start")
	}
	before := pids(status(t, sb))

	second := up(t, sb)
	if !second.Reused || second.Server != first.Server || second.Kubeconfig != first.Kubeconfig {
		t.Fatalf("second Up = %+v, want Reused with the first's server and kubeconfig %+v", second, first)
	}
	if diff := cmp.Diff(before, pids(status(t, sb))); diff != "" {
		t.Fatalf("component pids changed across a second Up (-before +after):\n%s", diff)
	}
	if len(before) != 6 || before[sandbox.AgentName] == 0 {
		t.Fatalf("components = %v, want etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok-controller, %s", before, sandbox.AgentName)
	}
}
