package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// Two state directories apply the same release into a namespace that does
// not exist yet. The first holds the release (its bootstrap Lease in
// kube-system) before its first write, the Namespace's; the second,
// arriving while the first is paused after journaling that write's intent,
// is refused naming the first and writes nothing: no run, no Lease, not the
// Namespace. The first then finishes and leaves no Lease behind.
func TestSecondStateDirLockedOutOfNewNamespace(t *testing.T) {
	t.Parallel()
	sb := sandboxtest.Cluster(t)
	ns := absentNamespace(t, sb)
	r := newReleaseIn(t, sb, ns, "", map[string]string{
		"ns.yaml":   fmt.Sprintf("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: %s\n  labels:\n    %s: \"true\"\n", ns, sandboxtest.TestLabel),
		"cm-a.yaml": configMapYAML("a", "value", "1"),
	})
	p := r.plan(t)
	other := copyRelease(t, r)
	first := startPiceli(t, apply.FailAfterIntent+":1:8s", "release", "apply", "--spec", r.spec, "--approve", p.Hash)
	r.waitForJournal(t, "the Namespace's intent", func(st journal.State) bool { return len(st.Steps) > 0 })
	pid := "pid " + strconv.Itoa(first.cmd.Process.Pid)

	second := run(t, "release", "apply", "--spec", other.spec, "--approve", p.Hash)
	bootstrap := "(lease kube-system/piceli-release-demo." + ns + ")"
	if second.code != ExitRefused || !strings.Contains(second.stderr, "release is locked by") || !strings.Contains(second.stderr, pid) || !strings.Contains(second.stderr, bootstrap) {
		t.Errorf("second apply: exit %d, stderr:\n%s\nwant exit 2 naming the first's %s and %q", second.code, second.stderr, pid, bootstrap)
	}
	select {
	case <-first.done:
		t.Fatalf("the first apply ended before the second was checked; raise its pause:\n%s", first.out.String())
	default:
	}
	if _, err := sb.Clientset.CoreV1().Namespaces().Get(t.Context(), ns, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get Namespace/%s while the first apply is paused before writing it = %v, want NotFound: the second wrote it", ns, err)
	}
	if _, err := os.Stat(apply.RunDir(other.stateDir, "")); !os.IsNotExist(err) {
		t.Errorf("the refused apply started a run in its state directory (stat: %v)", err)
	}

	if got := first.wait(t, time.Minute); got != "exit 0" {
		t.Fatalf("the first apply ended with %s, want exit 0; output:\n%s", got, first.out.String())
	}
	r.assertFinished(t, p)
	assertNoLeases(t, sb, ns)
}

// absentNamespace returns the name of a namespace that does not exist, and
// deletes it, and the bootstrap Lease of a release demo in it, when the
// test ends.
func absentNamespace(t *testing.T, sb *sandboxtest.Sandbox) string {
	t.Helper()
	b := make([]byte, 4)
	rand.Read(b)
	ns := "t-absent-" + hex.EncodeToString(b)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		err := sb.Clientset.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("delete Namespace/%s: %v", ns, err)
		}
		sb.Clientset.CoordinationV1().Leases("kube-system").Delete(ctx, "piceli-release-demo."+ns, metav1.DeleteOptions{})
	})
	return ns
}

// assertNoLeases checks that neither ns nor kube-system holds a Lease of
// the release demo in ns.
func assertNoLeases(t *testing.T, sb *sandboxtest.Sandbox, ns string) {
	t.Helper()
	leases, err := sb.Clientset.CoordinationV1().Leases(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil || len(leases.Items) != 0 {
		t.Errorf("after the run Namespace/%s holds Leases %v (%v), want none", ns, leases, err)
	}
	_, err = sb.Clientset.CoordinationV1().Leases("kube-system").Get(t.Context(), "piceli-release-demo."+ns, metav1.GetOptions{})
	if !apierrors.IsNotFound(err) {
		t.Errorf("get the bootstrap Lease after the run = %v, want NotFound", err)
	}
}
