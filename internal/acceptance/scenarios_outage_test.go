package acceptance

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/cli"
	"github.com/pynenc/piceli/internal/faultproxy"
	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// outageScenarios take the API server away in the middle of an apply:
// through the proxy (every request refused or reset for a window) and for
// real (the extra sandbox's kube-apiserver killed and started again).
func outageScenarios() []scenario {
	return []scenario{
		{
			name:     "the API server unreachable (every connection reset) while a wave is written",
			fault:    "from the first intents until the run gives up, every request's connection is reset",
			expected: "exit 1 with the wave's steps in doubt; once it is back, resume settles them and finishes",
			covers:   covers(reset), fast: true,
			run: func(c *sc) { window(c, faultproxy.Rule{Kind: reset}) },
		},
		{
			name:     "the API server answering 503 to everything while a wave is written",
			fault:    "from the first intents until the run gives up, every request is answered 503 without Retry-After",
			expected: "exit 1 with the wave's steps in doubt; once it is back, resume settles them and finishes",
			covers:   covers(status),
			run:      func(c *sc) { window(c, faultproxy.Rule{Kind: status, Code: 503}) },
		},
		{
			name:     "the API server shedding load (429 Retry-After) for 3s rides it out",
			fault:    "for 3s from the first intents every request is answered 429 with Retry-After: 1",
			expected: "exit 0 in one run: the client waits and retries; each object written once",
			covers:   covers(status),
			run:      shedLoad,
		},
		{
			name:     "the API server killed while a wave is written, then restarted",
			fault:    "the extra sandbox's kube-apiserver killed (SIGKILL) after the first intents, started again after the run failed",
			expected: "exit 1 with steps in doubt; after the restart resume settles them and finishes",
			run:      restartDuringWrites,
		},
		{
			name:     "the API server killed and restarted while a run waits for readiness",
			fault:    "the extra sandbox's kube-apiserver killed (SIGKILL) after the Deployment's write, started again at once",
			expected: "exit 0 in one run: readiness reads fail while it is down and succeed after",
			run:      restartDuringReadiness,
		},
		{
			name:     "a plan made against another cluster is refused",
			fault:    "plan against the sandbox, apply with the spec pointed at a second sandbox",
			expected: "exit 2: the target differs (cluster UID); neither cluster changes",
			run:      otherCluster,
		},
	}
}

// window holds the run after its first intents (a pausing failpoint),
// makes rule answer every request until the run ends, then lets the
// server back and resumes.
func window(c *sc, rule faultproxy.Rule) {
	e := c.env(envOptions{})
	p := e.plan()
	e.markWrites()
	proc := e.start(failpoint(apply.FailAfterIntent+":1:1s"), "release", "apply", "--spec", e.spec, "--approve", p.Hash)
	e.waitJournal("the first intents", func(st journal.State) bool { return len(st.Steps) > 0 })
	e.fault(rule)
	if got := e.wait(proc, 2*time.Minute); got != "exit 1" || !strings.Contains(proc.out.String(), "(it may have been applied)") {
		e.t.Fatalf("apply while the server is away: %s, want exit 1 with steps in doubt:\n%s", got, proc.out.String())
	}
	e.proxy.Clear()
	st := e.status()
	if st.Run == nil || string(st.Run.Phase) != string(journal.StatusFailed) || st.Run.InDoubt != shape[0] {
		e.t.Errorf("status after the outage = %+v, want failed with the %d steps of the first wave in doubt", st.Run, shape[0])
	}
	e.wantExit(cli.ExitOK, "resume")
	e.wantEachStepAppliedOnce(p)
}

// shedLoad answers every request 429 with Retry-After for 3s.
func shedLoad(c *sc) {
	e := c.env(envOptions{})
	p := e.plan()
	e.markWrites()
	proc := e.start(failpoint(apply.FailAfterIntent+":1:1s"), "release", "apply", "--spec", e.spec, "--approve", p.Hash)
	e.waitJournal("the first intents", func(st journal.State) bool { return len(st.Steps) > 0 })
	e.fault(faultproxy.Rule{Kind: status, Code: 429, RetryAfter: time.Second})
	time.AfterFunc(3*time.Second, e.proxy.Clear)
	if got := e.wait(proc, 2*time.Minute); got != "exit 0" {
		e.t.Fatalf("apply while the server sheds load: %s, want exit 0:\n%s", got, proc.out.String())
	}
	if n := e.proxy.Applied(); len(n) == 1 && n[0] == 0 {
		e.t.Errorf("no request was answered 429: the window missed the run")
	}
	e.wantEachStepAppliedOnce(p)
}

// restartDuringWrites kills the extra sandbox's API server while the run
// is paused after its first intents: the writes find no server.
func restartDuringWrites(c *sc) {
	x := extraSandbox(c)
	e := c.envOn(x, envOptions{})
	p := e.plan()
	e.markWrites()
	proc := e.start(failpoint(apply.FailAfterIntent+":1:2s"), "release", "apply", "--spec", e.spec, "--approve", p.Hash)
	e.waitJournal("the first intents", func(st journal.State) bool { return len(st.Steps) > 0 })
	server := killAPIServer(e.t)
	if got := e.wait(proc, 2*time.Minute); got != "exit 1" {
		e.t.Fatalf("apply with the API server gone: %s, want exit 1:\n%s", got, proc.out.String())
	}
	wantIn(e.t, "the failed apply's output", proc.out.String(), "(it may have been applied)")
	start := time.Now()
	server.restart(e.t, x)
	e.setFault("the extra sandbox's kube-apiserver killed (SIGKILL) after the first intents, started again after the run failed (ready again in %.1fs)", time.Since(start).Seconds())
	e.wantExit(cli.ExitOK, "resume")
	e.wantEachStepAppliedOnce(p)
}

// restartDuringReadiness kills the extra sandbox's API server while the
// run waits for its Deployment, and starts it again at once.
func restartDuringReadiness(c *sc) {
	x := extraSandbox(c)
	e := c.envOn(x, envOptions{})
	p := e.plan()
	e.markWrites()
	web := stepOf(e.t, p, "Deployment", "web")
	proc := e.start(failpoint(fmt.Sprintf("%s:%d:1s", apply.FailAfterOutcome, len(p.Steps))), "release", "apply", "--spec", e.spec, "--approve", p.Hash)
	e.waitJournal("the outcome of Deployment web", func(st journal.State) bool { return st.Steps[web].Status == journal.StepApplied })
	start := time.Now()
	killAPIServer(e.t).restart(e.t, x)
	e.setFault("the extra sandbox's kube-apiserver killed (SIGKILL) after the Deployment's write, started again at once (ready again in %.1fs)", time.Since(start).Seconds())
	if got := e.wait(proc, 2*time.Minute); got != "exit 0" {
		e.t.Fatalf("apply across an API server restart: %s, want exit 0:\n%s", got, proc.out.String())
	}
	e.wantEachStepAppliedOnce(p)
}

// otherCluster plans against the sandbox and applies against the extra
// sandbox, where a namespace of the same name exists.
func otherCluster(c *sc) {
	e := c.env(envOptions{})
	p := e.plan()
	x := extraSandbox(c)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: e.ns, Labels: map[string]string{sandboxtest.TestLabel: "true"}}}
	if _, err := x.Clientset.CoreV1().Namespaces().Create(ctx(e.t), ns, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
	c.t.Cleanup(func() { x.Clientset.CoreV1().Namespaces().Delete(ctx(c.t), e.ns, metav1.DeleteOptions{}) })
	other := objectsIn(e.t, x, e.ns)
	e.kubeconfig, e.kubeContext = x.Kubeconfig, x.Context
	e.writeSpec()
	e.refusedApply(p, "is stale", "the target differs", "cluster "+p.Target.ClusterUID)
	for _, d := range diffMaps(other, objectsIn(e.t, x, e.ns)) {
		e.t.Errorf("the other cluster changed: %s", d)
	}
	// The after-checks read the release's own cluster again.
	e.kubeconfig, e.kubeContext = e.proxyKubeconfig(), releaseContext
	e.writeSpec()
}
