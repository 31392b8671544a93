package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pynenc/piceli/internal/check"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// checkCanaryEnv is the environment variable a secret of the check test
// is read from.
const checkCanaryEnv = "PICELI_CHECK_TEST_CANARY"

// Checks never see or print a secret value: a command check's environment
// lacks the variable a secret is read from, and
// a Job whose logs print the release's generated value has it taken out of
// the excerpt, in the run's output, journal and revision and in release
// check's JSON alike.
func TestChecksNeverShowASecret(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	canaries := map[string]string{"env": canary(t, "env")}
	t.Setenv(checkCanaryEnv, canaries["env"])
	checks := strings.Join([]string{
		`[[checks]]`, `name = "environment"`, `command = { run = ["sh", "-c", "echo canary=${` + checkCanaryEnv + `:-absent}"], services = [] }`,
		`[[checks]]`, `name = "chatty job"`, `job = { image = "example.invalid/tool:1", command = ["/print-it"] }`, ``,
	}, "\n")
	r := newSecretRelease(t, sb, checks, []secretKey{
		{key: "gen", source: `app.Generated("gen", 40)`},
		{key: "env", source: fmt.Sprintf("app.FromEnv(%q, %q)", "env", checkCanaryEnv)},
	}, goComposition{})
	p := r.plan(t)
	canaries["generated"] = revealed(t, r.spec, secretName, "")["gen"]
	logs := sandboxtest.WriteCRILog(t, "connecting with password "+canaries["generated"], "base64 "+canaryForms(canaries["generated"])[1], "done")
	sb.OnEveryPod(t, r.ns, sandboxtest.PodRule{Selector: map[string]string{check.CheckOfLabel: "demo"}, Logs: logs})

	var out outputs
	res := run(t, "release", "apply", "--spec", r.spec, "--approve", p.Hash)
	out.add("release apply", res.stdout+res.stderr)
	if res.code != ExitOK {
		t.Fatalf("apply: exit %d\n%s", res.code, res.stderr)
	}
	again := run(t, "release", "check", "--spec", r.spec, "-o", "json")
	out.add("release check -o json", again.stdout+again.stderr)
	if again.code != ExitOK || !strings.Contains(again.stdout, "connecting with password "+check.Redacted) || !strings.Contains(again.stdout, "canary=absent") {
		t.Errorf("release check: exit %d, want 0, the job's log with the value taken out and the variable absent\n%s%s", again.code, again.stdout, again.stderr)
	}
	status := run(t, "status", "--spec", r.spec, "-o", "json")
	out.add("status -o json", status.stdout+status.stderr)
	for _, o := range out {
		if l := leaks([]byte(o.text), canaries); len(l) > 0 {
			t.Errorf("the output of %s holds secret values: %s", o.name, strings.Join(l, "; "))
		}
	}
	sweepDir(t, r.stateDir, canaries, filepath.Join(r.stateDir, "secrets"))
	if env := os.Getenv(checkCanaryEnv); env != canaries["env"] {
		t.Fatalf("the test's own environment lost %s", checkCanaryEnv)
	}
}
