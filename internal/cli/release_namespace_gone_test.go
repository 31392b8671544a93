package cli

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// A namespace deleted while a run waits in it ended the run with a bare
// "context canceled" (issue 28, minor). The run's error now says which
// namespace went away and what to do.
func TestANamespaceDeletedMidRunIsNamed(t *testing.T) {
	t.Parallel()
	sb := sandboxtest.Cluster(t)
	unschedulable := "      nodeSelector:\n        piceli.dev/nowhere: \"true\"\n"
	// A namespace of the test's own, which the run creates and the test
	// deletes (sandboxtest's namespaces must outlive their test).
	ns := fmt.Sprintf("t-ns-gone-%d", time.Now().UnixNano()%1_000_000_000)
	t.Cleanup(func() { sb.Clientset.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{}) })
	r := newReleaseIn(t, sb, ns, `ready_timeout = "5m"`, map[string]string{"deploy.yaml": deploymentYAML("stuck", 1, unschedulable)})
	p := r.plan(t)
	proc := startPiceli(t, "", "release", "apply", "--spec", r.spec, "--approve", p.Hash)
	sandboxtest.Eventually(t, time.Minute, "Deployment stuck written", func(ctx context.Context) (bool, error) {
		_, err := sb.Clientset.AppsV1().Deployments(r.ns).Get(ctx, "stuck", metav1.GetOptions{})
		return err == nil, nil
	})
	if err := sb.Clientset.CoreV1().Namespaces().Delete(t.Context(), r.ns, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	how := proc.wait(t, 2*time.Minute)
	out := proc.out.String()
	if how == "exit 0" || !strings.Contains(out, "namespace "+r.ns+" was deleted during the run") || !strings.Contains(out, "plan the release again") {
		t.Errorf("release apply with its namespace deleted: %s, want a failure naming namespace %s and what to do:\n%s", how, r.ns, out)
	}
}
