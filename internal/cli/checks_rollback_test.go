package cli

import (
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"testing"

	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/history"
	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// webChecked is the Deployment web of a secretRelease serving port 80
// behind a Service, which kwok forwards, for every pod it starts, to a
// loopback HTTP server answering token: the stand-in for a container on
// the sandbox's real node (issue 12), where the same test must pass
// against the image instead.
var webChecked = goComposition{web: "\t\tapp.Ports(80),\n", body: "\ta.Service(web, app.Port(80))\n"}

// checkExtra is the [release] policy and a [[checks]] table expecting
// status from the home page and token in its body.
func checkExtra(status int, token string) string {
	return fmt.Sprintf("on_failure = \"rollback\"\n\n[[checks]]\nname = \"home page\"\nretries = 1\nbackoff = \"100ms\"\nhttp = { service = \"web\", port = 80, path = \"/\", expect_status = %d, body_contains = %q }\n", status, token)
}

// Acceptance 1 (on kwok): an http check passes through a port-forward; a
// check that fails makes the run fail (exit 1) and, with on_failure =
// "rollback", the previous revision is back, objects and secret version,
// through a rollback revision whose checks are recorded as skipped; the
// failed run's journal keeps the failing check.
func TestFailingCheckRollsBackToThePreviousRevision(t *testing.T) {
	t.Parallel()
	sb := sandboxtest.Cluster(t)
	srv := sandboxtest.LoopbackHTTP(t)
	r := newSecretRelease(t, sb, checkExtra(200, srv.Token), rolloutKeys, webChecked)
	sb.OnEveryPod(t, r.ns, sandboxtest.PodRule{Selector: map[string]string{"app.kubernetes.io/name": "web"}, Port: 80, Target: srv.Addr})
	r.rollsBackAFailingCheck(t, srv.Token)
	assertFailedRunKeptItsCheck(t, r)
}

// rollsBackAFailingCheck applies version one of the secret with the check
// passing (expecting 200 and token), then version two with the check
// expecting 201: the run fails with exit 1 and is rolled back to revision
// 1, objects and secret version, recorded in history. Once the spec
// expects 200 again, release check passes.
func (r *secretRelease) rollsBackAFailingCheck(t *testing.T, token string) {
	t.Helper()
	r.writeSecretFile(t, "secret/pw.txt", "version-one")
	first := r.apply(t, r.plan(t))
	if !strings.Contains(first.stderr, "check home page (http): passed") {
		t.Errorf("apply stderr does not report the check passing:\n%s", first.stderr)
	}
	v1 := revealed(t, r.spec, secretName, "1")

	r.writeSecretFile(t, "secret/pw.txt", "version-two")
	r.setBroken(t, false, checkExtra(201, token))
	p := r.plan(t)
	res := run(t, "release", "apply", "--spec", r.spec, "--approve", p.Hash)
	if res.code != ExitFailed {
		t.Fatalf("apply with a failing check: exit %d, want 1\n%s", res.code, res.stderr)
	}
	for _, want := range []string{`check "home page": GET / answered status 200, want 201`, "rolled back to revision 1", "finished: revision 2"} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("apply stderr does not say %q:\n%s", want, res.stderr)
		}
	}
	if live := r.liveSecretData(t, secretName); !maps.Equal(live, v1) {
		t.Errorf("after the rollback the live Secret does not hold version 1 (file %q)", live["file"])
	}
	assertRollbackHistory(t, r.stateDir)

	r.setBroken(t, false, checkExtra(200, token))
	if again := run(t, "release", "check", "--spec", r.spec); again.code != ExitOK || !strings.Contains(again.stdout, "passed  home page (http)") {
		t.Errorf("release check: exit %d, want 0 and the check passed\n%s%s", again.code, again.stdout, again.stderr)
	}
}

// assertRollbackHistory checks revision 1 (apply, its check passed) and 2
// (the rollback to 1, checks skipped as automatic).
func assertRollbackHistory(t *testing.T, stateDir string) {
	t.Helper()
	revs, err := history.List(stateDir)
	if err != nil || len(revs) != 2 {
		t.Fatalf("history: %d revisions, %v; want 2 (the apply and the rollback)", len(revs), err)
	}
	if c := revs[0].Checks; revs[0].Source != "apply" || c == nil || len(c.Results) != 1 || !c.Results[0].Passed {
		t.Errorf("revision 1 = %s with checks %+v, want apply with its check passed", revs[0].Source, c)
	}
	if c := revs[1].Checks; revs[1].Source != "rollback to 1" || c == nil || !c.Skipped || !strings.Contains(c.Reason, "automatic rollback after run") {
		t.Errorf("revision 2 = %s with checks %+v, want the rollback to 1 with its checks skipped as automatic", revs[1].Source, c)
	}
	if revs[1].Secrets[secretName] != 1 {
		t.Errorf("revision 2 uses version %d of %s, want 1", revs[1].Secrets[secretName], secretName)
	}
}

// assertFailedRunKeptItsCheck finds the run before the rollback: failed,
// with the failing check in its journal, and says so in status -o json.
func assertFailedRunKeptItsCheck(t *testing.T, r *secretRelease) {
	t.Helper()
	runs, err := apply.Runs(r.stateDir)
	if err != nil || len(runs) != 3 {
		t.Fatalf("runs = %v, %v; want three (apply, failed apply, rollback)", runs, err)
	}
	st, _, err := apply.Inspect(r.stateDir, runs[1])
	if err != nil {
		t.Fatal(err)
	}
	if st.Status != journal.StatusFailed || len(st.Checks) != 1 || st.Checks[0].Passed || !strings.Contains(st.Checks[0].Excerpt, "200 OK") {
		t.Errorf("run %s: %s with checks %+v; want failed with the failing check and its excerpt", runs[1], st.Status, st.Checks)
	}
	res := run(t, "release", "history", "--spec", r.spec, "-o", "json")
	var got struct{ Revisions []history.Summary }
	if err := json.Unmarshal([]byte(res.stdout), &got); err != nil || len(got.Revisions) != 2 || got.Revisions[1].Checks == nil {
		t.Errorf("history -o json does not carry the revisions' checks (%v):\n%s", err, res.stdout)
	}
}
