package kube

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// TestIdentityIsTheKubeSystemUID: the identity names the server, context,
// kube-system UID and version, and is the same on a second call.
func TestIdentityIsTheKubeSystemUID(t *testing.T) {
	c, sb := connectSandbox(t)
	ctx := sandboxtest.Context(t, 30*time.Second)
	ns, err := sb.Clientset.CoreV1().Namespaces().Get(ctx, "kube-system", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	version, err := sb.Clientset.Discovery().ServerVersion()
	if err != nil {
		t.Fatal(err)
	}
	want := Identity{Server: sb.RESTConfig.Host, Context: sb.Context, ClusterUID: string(ns.UID), Version: version.GitVersion}

	for call := 1; call <= 2; call++ {
		got, err := c.Identity(ctx)
		if err != nil {
			t.Fatalf("Identity() call %d: %v", call, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Identity() call %d = %+v, want %+v\n(-want +got):\n%s", call, got, want, diff)
		}
	}
}
