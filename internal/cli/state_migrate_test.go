package cli

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
	"github.com/pynenc/piceli/internal/state"
)

// A local release moved to the cluster with "state migrate cluster"
// is seen by a second machine; "state show" names a deleted chunk; and
// "state migrate local" brings the state back and leaves no state
// Secret.
func TestStateMigrateBothWaysAndShowNamesADeletedChunk(t *testing.T) {
	t.Parallel()
	sb := sandboxtest.Cluster(t)
	a := newRelease(t, sb, `state = "local"`+"\n"+signersLine, smallManifests())
	a.apply(t, a.plan(t))
	if res := run(t, "state", "migrate", "cluster", "--spec", a.spec); res.code != ExitOK || !strings.Contains(res.stdout, `now set state = "cluster"`) {
		t.Fatalf("state migrate cluster: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	b := newReleaseIn(t, sb, a.ns, sharedState, smallManifests())
	if got := runHistory(t, b); !strings.HasPrefix(got, "1 ") {
		t.Errorf("history on a second machine after the migration ends with %q, want revision 1", got)
	}

	secrets := sb.Clientset.CoreV1().Secrets(a.ns)
	chunk := "piceli-state-demo-1-0"
	if err := secrets.Delete(t.Context(), chunk, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	show := run(t, "state", "show", "--spec", b.spec)
	if want := "chunk Secret/" + a.ns + "/" + chunk + " is missing"; show.code != ExitOK || !strings.Contains(show.stdout, want) {
		t.Errorf("state show with a deleted chunk: exit %d, want it to say %q:\n%s%s", show.code, want, show.stdout, show.stderr)
	}

	// Push a complete snapshot again from the second machine, then move back.
	b.setManifest(t, "cm-a.yaml", configMapYAML("a", "value", "2"))
	b.plan(t)
	if res := run(t, "state", "migrate", "local", "--spec", b.spec); res.code != ExitOK {
		t.Fatalf("state migrate local: exit %d\n%s", res.code, res.stderr)
	}
	left, err := secrets.List(t.Context(), metav1.ListOptions{LabelSelector: state.StateLabel + "=demo"})
	if err != nil || len(left.Items) != 0 {
		t.Errorf("state Secrets after migrating to local: %d (%v), want none", len(left.Items), err)
	}
	if got := runHistory(t, a); !strings.HasPrefix(got, "1 ") {
		t.Errorf("history on the first machine ends with %q, want revision 1", got)
	}
}
