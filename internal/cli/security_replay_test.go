package cli

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/history"
	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
	"github.com/pynenc/piceli/internal/state"
)

// backup is a copy of a release's state Secrets, as a namespace backup
// holds them.
type backup []corev1.Secret

// backupState copies the state Secrets of r's release.
func backupState(t *testing.T, r *testRelease) backup {
	t.Helper()
	list, err := r.sb.Clientset.CoreV1().Secrets(r.ns).List(t.Context(), metav1.ListOptions{LabelSelector: state.StateLabel + "=" + r.name})
	if err != nil || len(list.Items) == 0 {
		t.Fatalf("list the state Secrets: %d, %v", len(list.Items), err)
	}
	return list.Items
}

// restore puts the backed-up Secrets back as they were, as the intruder
// (a restore needs no more than writing Secrets), over what is there now.
func (b backup) restore(t *testing.T, a *attacker) {
	t.Helper()
	for _, s := range b {
		a.putSecret(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: s.Name, Labels: s.Labels}, Type: s.Type, Data: s.Data})
	}
}

// generation is the current generation of r's shared state.
func generation(t *testing.T, r *testRelease, a *attacker) int64 {
	t.Helper()
	m, _ := a.manifest(t, r.name)
	return m.Current.Generation
}

// Issue 28, hole 6: restoring older state Secrets (what a namespace backup
// restore does, here by a Secrets-only identity) is refused by a machine
// that has seen newer state, with a message saying so and how to accept
// it, and its newer revision stays in its cache; the explicit
// acknowledgement (state pull --accept-older GENERATION) takes it, is
// logged, and the next push numbers past every generation seen. State
// deleted outright is refused the same way until acknowledged with 0.
func TestSecurityReplayedStateIsRefused(t *testing.T) {
	t.Parallel()
	sb := sandboxtest.Cluster(t)
	r := newRelease(t, sb, sharedState, map[string]string{"cfg.yaml": configMapYAML("cfg", "mode", "one")})
	intruder := newAttacker(t, sb, r.ns, "none")
	r.apply(t, r.plan(t))
	old, oldGen := backupState(t, r), generation(t, r, intruder)
	r.setManifest(t, "cfg.yaml", configMapYAML("cfg", "mode", "two"))
	r.apply(t, r.plan(t))
	seen := generation(t, r, intruder)

	old.restore(t, intruder)
	res := run(t, "release", "history", "--spec", r.spec)
	want := fmt.Sprintf("holds state snapshot %d, but this machine has seen snapshot %d", oldGen, seen)
	if res.code != ExitRefused || !strings.Contains(res.stderr, want) || !strings.Contains(res.stderr, fmt.Sprintf("--accept-older %d", oldGen)) {
		t.Fatalf("history after the restore: exit %d, want 2 saying %q and how to accept it\n%s", res.code, want, res.stderr)
	}
	if revs, err := history.List(r.stateDir); err != nil || len(revs) != 2 {
		t.Errorf("the cache holds %d revisions (%v) after the refused pull, want both", len(revs), err)
	}

	res = run(t, "state", "pull", "--spec", r.spec, "--accept-older", strconv.FormatInt(oldGen, 10))
	logged := fmt.Sprintf("accepted snapshot %d of release demo in namespace %s although this machine had seen snapshot %d", oldGen, r.ns, seen)
	if res.code != ExitOK || !strings.Contains(res.stderr, logged) {
		t.Fatalf("state pull --accept-older %d: exit %d, want 0 logging %q\n%s%s", oldGen, res.code, logged, res.stdout, res.stderr)
	}
	if got := historySources(t, r.spec); len(got) != 1 {
		t.Errorf("history after accepting the older state = %q, want its one revision", got)
	}
	r.plan(t) // a push
	if got := generation(t, r, intruder); got <= seen {
		t.Errorf("the push after the acknowledgement made generation %d, want past %d, the newest seen", got, seen)
	}

	deleteState(t, r)
	res = run(t, "release", "history", "--spec", r.spec)
	if res.code != ExitRefused || !strings.Contains(res.stderr, "holds no state, but this machine has seen snapshot") {
		t.Fatalf("history with the state deleted: exit %d, want 2 saying the state is gone\n%s", res.code, res.stderr)
	}
	if res := run(t, "state", "pull", "--spec", r.spec, "--accept-older", "0"); res.code != ExitOK {
		t.Fatalf("state pull --accept-older 0: exit %d\n%s", res.code, res.stderr)
	}
	if res := run(t, "release", "history", "--spec", r.spec); res.code != ExitOK {
		t.Errorf("history once the deletion was accepted: exit %d\n%s", res.code, res.stderr)
	}
}

// deleteState deletes every state Secret of r's release.
func deleteState(t *testing.T, r *testRelease) {
	t.Helper()
	api := r.sb.Clientset.CoreV1().Secrets(r.ns)
	for _, s := range backupState(t, r) {
		if err := api.Delete(t.Context(), s.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Fatal(err)
		}
	}
}

// Issue 28, hole 8, the reported scenario: a machine whose own run was
// killed before its first push, while another machine started a later run
// that was interrupted among its writes, resumes that later run, not its
// own older one, and finishes it with every step applied once.
func TestSecurityLatestRunAcrossMachines(t *testing.T) {
	t.Parallel()
	sb := sandboxtest.Cluster(t)
	piceliBinary(t)
	a := newRelease(t, sb, sharedState, smallManifests())
	p := a.plan(t)
	if got := startPiceli(t, apply.FailAfterIntent+":1", "release", "apply", "--spec", a.spec, "--approve", p.Hash).wait(t, time.Minute); got != "killed" {
		t.Fatalf("the first machine's apply: %s, want killed before its first push", got)
	}
	own, _ := a.latestRun(t)

	b := newReleaseIn(t, sb, a.ns, sharedState, smallManifests())
	q := b.plan(t)
	proc := startPiceli(t, apply.FailAfterWrite+":2", "release", "apply", "--spec", b.spec, "--approve", q.Hash)
	if got := proc.wait(t, time.Minute); got != "killed" {
		t.Fatalf("the second machine's apply: %s, want killed among its writes\n%s", got, proc.out.String())
	}
	later, st := b.latestRun(t)
	if later == own || st.Status != journal.StatusRunning {
		t.Fatalf("the second machine's run %s (%s), want a run of its own, interrupted", later, st.Status)
	}

	res := run(t, "release", "resume", "--spec", a.spec)
	if res.code != ExitOK {
		t.Fatalf("release resume on the first machine: exit %d\n%s", res.code, res.stderr)
	}
	if got, _ := a.latestRun(t); got != later {
		t.Fatalf("the first machine resumed run %s, want the second machine's later run %s (its own is %s)\n%s", got, later, own, res.stderr)
	}
	a.assertFinished(t, q)
}
