package acceptance

import (
	"net/http"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/faultproxy"
)

// secretScenarios sweep every output and file for secret values. Every
// scenario's after-checks sweep for its release's canary; this one drives
// the Secret through every path that could print it.
func secretScenarios() []scenario {
	return []scenario{{
		name: "secret values never leak through outputs, state files or the live object",
		fault: "three canary values of Secret s through plan, diff, killed and resumed, settled, failed and resumed applies, " +
			"status, history, rollback, all with --verbose request logs",
		expected: "no canary in any output, state file, temporary file or live annotation, raw, base64, hex, URL- or JSON-escaped",
		fast:     true,
		run:      canarySweep,
	}}
}

func canarySweep(c *sc) {
	e := c.env(envOptions{})
	canaries := []string{e.canary, canaryValue(e.t), canaryValue(e.t)}
	commands := 0
	verbose := func(env map[string]string, want string, args ...string) {
		e.t.Helper()
		commands++
		p := e.start(env, append([]string{"--verbose", "release"}, args...)...)
		if got := e.wait(p, 2*time.Minute); got != want {
			e.t.Fatalf("piceli --verbose release %s: %s, want %s:\n%s", strings.Join(args, " "), got, want, p.out.String())
		}
	}
	spec := []string{"--spec", e.spec}

	// The first value: planned, diffed, applied by a run killed after
	// its first write and resumed.
	for _, args := range [][]string{{"plan"}, {"plan", "-o", "json"}, {"diff"}, {"diff", "-o", "json"}} {
		verbose(nil, "exit 0", append(args, spec...)...)
	}
	p := e.plan()
	secret := stepOf(e.t, p, "Secret", "s")
	verbose(failpoint(apply.FailAfterWrite+":1"), "killed", append([]string{"apply", "--approve", p.Hash}, spec...)...)
	verbose(nil, "exit 0", append([]string{"resume"}, spec...)...)

	// The second: its write lands but the answer is lost, and it is
	// settled by reading the Secret back.
	e.nextPhase()
	e.setManifest("secret.yaml", secretYAML("s", canaries[1]))
	p = e.plan()
	e.fault(faultproxy.Rule{Kind: resetAfterForward, Match: e.realWrites(http.MethodPatch, "secrets", "s"), Times: 1})
	verbose(nil, "exit 0", append([]string{"apply", "--approve", p.Hash}, spec...)...)
	e.wantStory(p, secret, "intent update", "settled applied")

	// The third: a run that fails on the Deployment's write, resumed.
	e.nextPhase()
	e.setManifest("secret.yaml", secretYAML("s", canaries[2]))
	e.setManifest("deploy.yaml", deployment("web", "        changed: \"yes\"\n"))
	p = e.plan()
	e.proxy.Clear()
	e.fault(faultproxy.Rule{Kind: status, Code: 422, Match: e.realWrites(http.MethodPatch, "deployments", "web"), Times: 1})
	verbose(nil, "exit 1", append([]string{"apply", "--approve", p.Hash}, spec...)...)
	e.proxy.Clear()
	verbose(nil, "exit 0", append([]string{"resume"}, spec...)...)
	for _, args := range [][]string{{"run"}, {"run", "-o", "json"}, {"history"}, {"history", "-o", "json"}} {
		verbose(nil, "exit 0", append(args, spec...)...)
	}
	// A rollback to the first value is refused: the values of a Secret
	// written in a manifest are not kept.
	verbose(nil, "exit 2", append([]string{"rollback", "--to", "1"}, spec...)...)

	// The run's own Secret holds the last value; nothing else does.
	live, err := e.sb.Clientset.CoreV1().Secrets(e.ns).Get(ctx(e.t), "s", metav1.GetOptions{})
	if err != nil || string(live.Data["token"]) != canaries[2] {
		e.t.Fatalf("live Secret s: %v, want it to hold the third value", err)
	}
	for k, v := range live.Annotations {
		for i, canary := range canaries {
			if l := leaks([]byte(k+v), canary); len(l) > 0 {
				e.t.Errorf("canary leaked: annotation %s of the live Secret holds value %d (%s)", k, i+1, strings.Join(l, ", "))
			}
		}
	}
	if !strings.Contains(strings.Join(outputsOf(e), "\n"), "/secrets/s?") {
		e.t.Errorf("no --verbose output logged a request for Secret s: the sweep did not see client-go's request log")
	}
	for _, canary := range canaries[1:] { // the after-checks sweep for the first
		for _, o := range e.out {
			if l := leaks([]byte(o.text), canary); len(l) > 0 {
				e.t.Errorf("canary leaked: the output of %s holds a secret value (%s)", o.name, strings.Join(l, ", "))
			}
		}
		if n := sweepOrFail(e.t, e.dir, canary, e.dir+"/manifests") + sweepOrFail(e.t, e.tmp, canary); n == 0 {
			e.t.Errorf("the sweep read no file")
		}
	}
	e.setFault("Secret s given 3 canary values through %d commands with --verbose: plan, diff, an apply killed after a write and resumed, a settled write, a failed and a resumed apply, status, history, rollback", commands)
}

func outputsOf(e *env) []string {
	var out []string
	for _, o := range e.out {
		out = append(out, o.text)
	}
	return out
}
