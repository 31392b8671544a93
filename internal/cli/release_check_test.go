package cli

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/check"
	"github.com/pynenc/piceli/internal/history"
	"github.com/pynenc/piceli/internal/sandbox"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
	"github.com/pynenc/piceli/release"
)

// Acceptance 2: command and job checks pass and fail as declared, through
// release check (which changes nothing: no run, no revision); a command
// reaches a Service through PICELI_WEB_80_ADDR; a command printing 10 MB
// keeps a bounded excerpt. (The command uses curl, which reads the answer
// by its length: kwok's port-forward does not pass on the pod side
// closing a connection, a real node's kubelet does.)
func TestReleaseCheckRunsCommandAndJobChecks(t *testing.T) {
	t.Parallel()
	sb := sandboxtest.Cluster(t)
	if _, err := exec.LookPath("curl"); err != nil {
		t.Fatalf("the command check of this test runs curl, which is not installed: %v", err)
	}
	srv := sandboxtest.LoopbackHTTP(t)
	stuck := sb.SimulateAnnotations(t, sandbox.SimulateImagePullBackOff)
	var annotations []string
	for k, v := range stuck {
		annotations = append(annotations, fmt.Sprintf("%q = %q", k, v))
	}
	manifests := smallManifests()
	manifests["migrate.yaml"] = "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: migrate\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: migrate\n        image: example.invalid/migrate:1\n"
	checks := strings.Join([]string{
		`[[checks]]`, `name = "curl web"`,
		`command = { run = ["sh", "-c", "curl --silent --show-error --noproxy '*' --max-time 10 http://$PICELI_WEB_80_ADDR/"], services = ["web"] }`,
		`[[checks]]`, `name = "loud failure"`,
		`command = { run = ["sh", "-c", "head -c 10000000 /dev/zero | tr '\\\\0' x; echo; echo the end; exit 7"], services = [] }`,
		`[[checks]]`, `name = "migrate again"`, `job = { from = "migrate" }`,
		`[[checks]]`, `name = "stuck job"`, `timeout = "2s"`, `job = { image = "example.invalid/x:1", annotations = { ` + strings.Join(annotations, ", ") + ` } }`,
		``,
	}, "\n")
	r := newRelease(t, sb, "\n"+checks, manifests)
	sb.OnEveryPod(t, r.ns, sandboxtest.PodRule{Selector: map[string]string{"app": "web"}, Port: 80, Target: srv.Addr})
	sb.OnEveryPod(t, r.ns, sandboxtest.PodRule{Selector: map[string]string{check.CheckOfLabel: "demo"}, Logs: sandboxtest.WriteCRILog(t, "migrated to version 7")})
	// --skip-checks is explicit, and the revision says so.
	if res := run(t, "release", "apply", "--spec", r.spec, "--approve", r.plan(t).Hash, "--skip-checks"); res.code != ExitOK || !strings.Contains(res.stderr, "checks skipped: skipped on request") {
		t.Fatalf("apply --skip-checks: exit %d, want 0 and the checks said skipped\n%s", res.code, res.stderr)
	}
	revs, err := history.List(r.stateDir)
	if err != nil || len(revs) != 1 || revs[0].Checks == nil || !revs[0].Checks.Skipped {
		t.Fatalf("history after apply --skip-checks = %+v, %v; want one revision recording its checks skipped", revs, err)
	}
	runsBefore := len(mustRuns(t, r.stateDir))

	res := run(t, "release", "check", "--spec", r.spec, "-o", "json")
	if res.code != ExitFailed {
		t.Fatalf("release check: exit %d, want 1 (two checks fail)\n%s", res.code, res.stderr)
	}
	var doc struct {
		Schema string
		Passed bool
		Checks []release.CheckResult
	}
	if err := json.Unmarshal([]byte(res.stdout), &doc); err != nil || doc.Schema != "piceli.checks/v1" || doc.Passed || len(doc.Checks) != 4 {
		t.Fatalf("release check -o json = %v, %+v; want piceli.checks/v1 with 4 checks, not passed\n%s", err, doc, res.stdout)
	}
	want := []struct {
		passed         bool
		excerpt, error string
	}{
		{true, srv.Token, ""},
		{false, "the end", "sh exited with exit status 7"},
		{true, "container migrate:\nmigrated to version 7", ""},
		{false, "", "failed: DeadlineExceeded"},
	}
	for i, w := range want {
		c := doc.Checks[i]
		if c.Passed != w.passed || !strings.Contains(c.Excerpt, w.excerpt) || !strings.Contains(c.Error, w.error) {
			t.Errorf("check %q = passed %v, excerpt %.80q, error %q; want passed %v, excerpt with %q, error with %q", c.Name, c.Passed, c.Excerpt, c.Error, w.passed, w.excerpt, w.error)
		}
		if len(c.Excerpt) > check.MaxExcerpt+64 {
			t.Errorf("check %q keeps an excerpt of %d bytes, want at most %d", c.Name, len(c.Excerpt), check.MaxExcerpt)
		}
	}
	if !strings.Contains(doc.Checks[1].Excerpt, "bytes before this omitted]") {
		t.Errorf("the 10 MB excerpt does not say what it left out: %.120q", doc.Checks[1].Excerpt)
	}
	if n := len(mustRuns(t, r.stateDir)); n != runsBefore {
		t.Errorf("release check left %d runs, %d before: it must write nothing", n, runsBefore)
	}
}

func mustRuns(t *testing.T, stateDir string) []string {
	t.Helper()
	runs, err := apply.Runs(stateDir)
	if err != nil {
		t.Fatal(err)
	}
	return runs
}
