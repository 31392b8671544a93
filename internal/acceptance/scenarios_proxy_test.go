package acceptance

import (
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/cli"
	"github.com/pynenc/piceli/internal/faultproxy"
	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/sandbox"
)

// Shorthands for the proxy's fault kinds.
const (
	status             = faultproxy.Status
	statusAfterForward = faultproxy.StatusAfterForward
	delay              = faultproxy.Delay
	reset              = faultproxy.Reset
	resetAfterForward  = faultproxy.ResetAfterForward
	cutWatch           = faultproxy.CutWatch
	cutAnswer          = faultproxy.CutAnswer
)

// covers lists what a scenario exercises: fault kinds and failpoints.
func covers(kinds ...faultproxy.Kind) []string {
	var out []string
	for _, k := range kinds {
		out = append(out, coverFault(k))
	}
	return out
}

// realWrites matches the real writes (not dry runs) of one object.
func (e *env) realWrites(method, resource, name string) faultproxy.Match {
	return faultproxy.Match{Method: method, Path: "^" + regexp.QuoteMeta(e.objectPath(resource, name)) + "$", DryRun: faultproxy.NoDryRuns}
}

// anyRealApply matches every server-side apply (PATCH) of the release's
// objects that is not a dry run. Leases are written with other methods.
func (e *env) anyRealApply() faultproxy.Match {
	return faultproxy.Match{Method: http.MethodPatch, Path: "/namespaces/" + regexp.QuoteMeta(e.ns) + "/", DryRun: faultproxy.NoDryRuns}
}

// stepStory is what the latest run's journal says of one step, record by
// record: "intent create", "outcome applied", "settled not-applied".
func (e *env) stepStory(step int) []string {
	e.t.Helper()
	recs, _, err := journal.Read(e.journalPath())
	if err != nil {
		e.t.Fatal(err)
	}
	var out []string
	for _, r := range recs {
		if r.Step != step {
			continue
		}
		switch r.Type {
		case journal.Intent, journal.CompensateIntent:
			out = append(out, fmt.Sprintf("%s %s", r.Type, r.Action))
		default:
			out = append(out, fmt.Sprintf("%s %s", r.Type, r.Result))
		}
	}
	return out
}

// wantStory fails unless the journal tells exactly want of step.
func (e *env) wantStory(p *plan.Plan, step int, want ...string) {
	e.t.Helper()
	if got := e.stepStory(step); !slices.Equal(got, want) {
		e.t.Errorf("journal of %s = %q, want %q", p.Steps[step].Ref, got, want)
	}
}

// wantWrites fails unless the real writes of an object that reached the
// API server since the mark number n.
func (e *env) wantWrites(m faultproxy.Match, n int) {
	e.t.Helper()
	got := 0
	for _, r := range e.proxy.Requests()[e.mark:] {
		if isWrite(r) && regexp.MustCompile(m.Path).MatchString(r.Path) && (m.Method == "" || m.Method == r.Method) {
			got++
		}
	}
	if got != n {
		e.t.Errorf("%s %s reached the API server %d times, want %d", m.Method, m.Path, got, n)
	}
}

// wantApplied fails unless the proxy's rules applied as often as want
// says, rule by rule.
func (e *env) wantApplied(want ...int) {
	e.t.Helper()
	if got := e.proxy.Applied(); !slices.Equal(got, want) {
		e.t.Errorf("the proxy's rules applied %v times, want %v", got, want)
	}
}

// failedThenResumed applies p under the armed fault, wants the run to fail
// naming fragments, then resumes it to the end.
func (e *env) failedThenResumed(p *plan.Plan, fragments ...string) {
	e.t.Helper()
	res := e.apply(p)
	if res.code != cli.ExitFailed {
		e.t.Fatalf("apply under the fault: %s\nwant exit 1", res)
	}
	wantIn(e.t, "the failed apply's error", res.stderr, fragments...)
	if got := e.runStatus(); got != string(journal.StatusFailed) {
		e.t.Errorf("status of the failed run = %s, want failed", got)
	}
	e.wantExit(cli.ExitOK, "resume")
}

// proxyScenarios answer, delay, reset and cut the API server's answers.
func proxyScenarios() []scenario {
	return []scenario{
		{
			name:     "a create answered 409 Conflict fails the run, resume completes it",
			fault:    "409 instead of forwarding the first write of ConfigMap a",
			expected: "exit 1 naming ConfigMap a and the 409; resume finishes; a written once",
			covers:   covers(status), fast: true,
			run: func(c *sc) {
				e := c.env(envOptions{})
				p := e.plan()
				e.markWrites()
				e.fault(faultproxy.Rule{Kind: status, Code: 409, Match: e.realWrites(http.MethodPatch, "configmaps", "a"), Times: 1})
				e.failedThenResumed(p, "ConfigMap/"+e.ns+"/a", "409 Conflict")
				e.wantApplied(1)
			},
		},
		{
			name:     "an update answered 409 Conflict is read again and retried in the run",
			fault:    "409 instead of forwarding the update of ConfigMap a",
			expected: "exit 0: the engine re-reads a, finds its fields unchanged, applies once",
			covers:   covers(status),
			run: func(c *sc) {
				e := c.env(envOptions{})
				e.wantExit(cli.ExitOK, "apply", "--approve", e.plan().Hash)
				e.setManifest("cm-a.yaml", configMap("a", "2"))
				p := e.plan()
				e.markWrites()
				a := e.realWrites(http.MethodPatch, "configmaps", "a")
				e.fault(faultproxy.Rule{Kind: status, Code: 409, Match: a, Times: 1})
				e.wantExit(cli.ExitOK, "apply", "--approve", p.Hash)
				e.wantApplied(1)
				e.wantWrites(a, 1)
				e.wantStory(p, stepOf(e.t, p, "ConfigMap", "a"), "intent update", "outcome applied")
			},
		},
		{
			name:     "a create answered 422 Unprocessable fails the run, resume completes it",
			fault:    "422 instead of forwarding the first write of Service web",
			expected: "exit 1 naming Service web and the 422; resume finishes",
			covers:   covers(status), fast: true,
			run: func(c *sc) {
				e := c.env(envOptions{})
				p := e.plan()
				e.markWrites()
				e.fault(faultproxy.Rule{Kind: status, Code: 422, Match: e.realWrites(http.MethodPatch, "services", "web"), Times: 1})
				e.failedThenResumed(p, "Service/"+e.ns+"/web", "422 Unprocessable Entity")
				e.wantApplied(1)
			},
		},
		{
			name:     "a write answered 429 is retried after its Retry-After, within the run",
			fault:    "429 with Retry-After: 2 instead of forwarding the first write of ConfigMap b",
			expected: "exit 0; the retry reaches the server 2s or more after the 429, once",
			covers:   covers(status), fast: true,
			run: retryAfter429,
		},
		{
			name:     "readiness reads answered 429 are retried after their Retry-After",
			fault:    "429 with Retry-After: 1 for two reads of Deployment web",
			expected: "exit 0 in one run",
			covers:   covers(status),
			run: func(c *sc) {
				e := c.env(envOptions{})
				p := e.plan()
				e.markWrites()
				e.fault(faultproxy.Rule{Kind: status, Code: 429, RetryAfter: time.Second,
					Match: faultproxy.Match{Method: http.MethodGet, Path: regexp.QuoteMeta(e.objectPath("deployments", "web")) + "$"}, Times: 2})
				e.wantExit(cli.ExitOK, "apply", "--approve", p.Hash)
				e.wantApplied(2)
			},
		},
		lostWrite(500, true),
		lostWrite(503, false),
		{
			name:     "a write answered 503 with Retry-After is retried by the client",
			fault:    "503 with Retry-After: 1 instead of forwarding the first write of ConfigMap b",
			expected: "exit 0; the engine sees one successful write",
			covers:   covers(status),
			run: func(c *sc) {
				e := c.env(envOptions{})
				p := e.plan()
				e.markWrites()
				b := e.realWrites(http.MethodPatch, "configmaps", "b")
				e.fault(faultproxy.Rule{Kind: status, Code: 503, RetryAfter: time.Second, Match: b, Times: 1})
				e.wantExit(cli.ExitOK, "apply", "--approve", p.Hash)
				e.wantApplied(1)
				e.wantWrites(b, 1)
				e.wantStory(p, stepOf(e.t, p, "ConfigMap", "b"), "intent create", "outcome applied")
			},
		},
		{
			name:     "a write that landed but was answered 500 is settled applied, not written again",
			fault:    "write of ConfigMap b forwarded, then answered 500",
			expected: "exit 0; journal: intent, settled applied; b reached the server once",
			covers:   covers(statusAfterForward), fast: true,
			run: func(c *sc) {
				e := c.env(envOptions{})
				p := e.plan()
				e.markWrites()
				b := e.realWrites(http.MethodPatch, "configmaps", "b")
				e.fault(faultproxy.Rule{Kind: statusAfterForward, Code: 500, Match: b, Times: 1})
				e.wantExit(cli.ExitOK, "apply", "--approve", p.Hash)
				e.wantApplied(1)
				e.wantWrites(b, 1)
				e.wantStory(p, stepOf(e.t, p, "ConfigMap", "b"), "intent create", "settled applied")
			},
		},
		{
			name:     "every write of the run landing but answered 503 is settled applied",
			fault:    "every real apply forwarded, then answered 503",
			expected: "exit 0; each step journaled settled applied; each object written once",
			covers:   covers(statusAfterForward),
			run: func(c *sc) {
				e := c.env(envOptions{})
				p := e.plan()
				e.markWrites()
				e.fault(faultproxy.Rule{Kind: statusAfterForward, Code: 503, Match: e.anyRealApply()})
				e.wantExit(cli.ExitOK, "apply", "--approve", p.Hash)
				for i := range p.Steps {
					e.wantStory(p, i, "intent create", "settled applied")
				}
			},
		},
		{
			name:     "writes delayed by 1.5s each still finish the run",
			fault:    "every real apply held 1.5s before it is forwarded",
			expected: "exit 0 after at least 3 x 1.5s (three waves)",
			covers:   covers(delay), fast: true,
			run: func(c *sc) {
				e := c.env(envOptions{})
				p := e.plan()
				e.markWrites()
				e.fault(faultproxy.Rule{Kind: delay, Delay: 1500 * time.Millisecond, Match: e.anyRealApply()})
				start := time.Now()
				e.wantExit(cli.ExitOK, "apply", "--approve", p.Hash)
				if d := time.Since(start); d < 4500*time.Millisecond {
					e.t.Errorf("apply took %s, want at least 4.5s: the delays did not apply", d)
				}
				e.wantApplied(len(p.Steps))
			},
		},
		{
			name:     "a run stopped while a write is delayed stops after it, resume completes",
			fault:    "the write of Deployment web held 3s; release stop meanwhile",
			expected: "the apply exits 1 stopped after its in-flight write; resume finishes",
			covers:   covers(delay),
			run:      stopWhileDelayed,
		},
		{
			name:     "a write whose connection is reset before forwarding is retried once",
			fault:    "connection reset instead of forwarding the first write of ConfigMap b",
			expected: "exit 0; journal: intent, settled not-applied, intent, applied; b written once",
			covers:   covers(reset), fast: true,
			run: func(c *sc) {
				e := c.env(envOptions{})
				p := e.plan()
				e.markWrites()
				b := e.realWrites(http.MethodPatch, "configmaps", "b")
				e.fault(faultproxy.Rule{Kind: reset, Match: b, Times: 1})
				e.wantExit(cli.ExitOK, "apply", "--approve", p.Hash)
				e.wantApplied(1)
				e.wantWrites(b, 1)
				e.wantStory(p, stepOf(e.t, p, "ConfigMap", "b"), "intent create", "settled not-applied", "intent create", "outcome applied")
			},
		},
		{
			name:     "a write whose connection is reset after forwarding is never applied twice",
			fault:    "write of ConfigMap b forwarded, the server's answer dropped with a TCP reset",
			expected: "exit 0; journal: intent, settled applied; b reached the server exactly once",
			covers:   covers(resetAfterForward), fast: true,
			run: func(c *sc) {
				e := c.env(envOptions{})
				p := e.plan()
				e.markWrites()
				b := e.realWrites(http.MethodPatch, "configmaps", "b")
				e.fault(faultproxy.Rule{Kind: resetAfterForward, Match: b, Times: 1})
				e.wantExit(cli.ExitOK, "apply", "--approve", p.Hash)
				e.wantApplied(1)
				e.wantWrites(b, 1)
				e.wantStory(p, stepOf(e.t, p, "ConfigMap", "b"), "intent create", "settled applied")
			},
		},
		{
			name:     "every write's connection reset after forwarding: each settled, none repeated",
			fault:    "every real apply forwarded, then its connection reset",
			expected: "exit 0; every step settled applied; every object written once",
			covers:   covers(resetAfterForward),
			run: func(c *sc) {
				e := c.env(envOptions{})
				p := e.plan()
				e.markWrites()
				e.fault(faultproxy.Rule{Kind: resetAfterForward, Match: e.anyRealApply()})
				e.wantExit(cli.ExitOK, "apply", "--approve", p.Hash)
				e.wantApplied(len(p.Steps))
				for i := range p.Steps {
					e.wantStory(p, i, "intent create", "settled applied")
				}
			},
		},
		{
			name:     "readiness reads cut mid-answer are read again",
			fault:    "three readiness GETs of Deployment web answered with half their body, then the connection dropped",
			expected: "exit 0 in one run: a cut read is polled again",
			covers:   covers(cutAnswer), fast: true,
			run: func(c *sc) {
				cutReadinessReads(c, faultproxy.Rule{Kind: cutAnswer, Times: 3})
			},
		},
		{
			name:     "readiness reads ended before their answer are read again",
			fault:    "three readiness GETs of Deployment web forwarded and ended at once, as a long poll is cut (Piceli opens no watches)",
			expected: "exit 0 in one run: the client reads again",
			covers:   covers(cutWatch), fast: true,
			run: func(c *sc) {
				cutReadinessReads(c, faultproxy.Rule{Kind: cutWatch, Delay: time.Nanosecond, Times: 3})
			},
		},
		{
			name:     "the pod LIST of a readiness diagnosis cut mid-answer still ends the run compensated",
			fault:    "Deployment web never ready (ImagePullBackOff); every pod LIST answered with half its body",
			expected: "exit 1 after the 3s readiness timeout; compensated: nothing the run created is left",
			covers:   covers(cutAnswer),
			run:      cutDiagnosisList,
		},
	}
}

// retryAfter429 answers the first write of b with 429 and Retry-After: 2,
// and measures in the proxy's log when the retry arrived.
func retryAfter429(c *sc) {
	e := c.env(envOptions{})
	p := e.plan()
	e.markWrites()
	b := e.realWrites(http.MethodPatch, "configmaps", "b")
	e.fault(faultproxy.Rule{Kind: status, Code: 429, RetryAfter: 2 * time.Second, Match: b, Times: 1})
	start := time.Now()
	e.wantExit(cli.ExitOK, "apply", "--approve", p.Hash)
	took := time.Since(start)
	e.wantApplied(1)
	e.wantWrites(b, 1)
	e.wantStory(p, stepOf(e.t, p, "ConfigMap", "b"), "intent create", "outcome applied")
	var refused, retried time.Time
	for _, r := range e.proxy.Requests()[e.mark:] {
		if r.Method == http.MethodPatch && r.Path == e.objectPath("configmaps", "b") && !r.DryRun {
			if r.Fault == status && refused.IsZero() {
				refused = r.At
			} else if r.Forwarded && r.Fault == "" && !refused.IsZero() && retried.IsZero() {
				retried = r.At
			}
		}
	}
	gap := retried.Sub(refused)
	e.setFault("429 with Retry-After: 2 instead of forwarding the first write of ConfigMap b (retry came %.2fs later)", gap.Seconds())
	if refused.IsZero() || retried.IsZero() || gap < 1900*time.Millisecond || gap > 10*time.Second {
		e.t.Errorf("the 429 at %v was retried at %v (%s later), want 2s to 10s later", refused, retried, gap)
	}
	if took > 30*time.Second {
		e.t.Errorf("the run took %s, past its 30s readiness deadline", took)
	}
}

// lostWrite answers the first write of b with code, without forwarding:
// the engine cannot tell whether it landed, reads the cluster, finds it
// did not, and writes again under a new intent.
func lostWrite(code int, fast bool) scenario {
	return scenario{
		name:     fmt.Sprintf("a write answered %d is settled not applied and written again", code),
		fault:    fmt.Sprintf("%d instead of forwarding the first write of ConfigMap b", code),
		expected: "exit 0; journal: intent, settled not-applied, intent, applied; b written once",
		covers:   covers(status), fast: fast,
		run: func(c *sc) {
			e := c.env(envOptions{})
			p := e.plan()
			e.markWrites()
			b := e.realWrites(http.MethodPatch, "configmaps", "b")
			e.fault(faultproxy.Rule{Kind: status, Code: code, Match: b, Times: 1})
			e.wantExit(cli.ExitOK, "apply", "--approve", p.Hash)
			e.wantApplied(1)
			e.wantWrites(b, 1)
			e.wantStory(p, stepOf(e.t, p, "ConfigMap", "b"), "intent create", "settled not-applied", "intent create", "outcome applied")
		},
	}
}

// stopWhileDelayed stops a run whose Deployment write is held by the
// proxy: the write completes, the run stops, resume finishes it.
func stopWhileDelayed(c *sc) {
	e := c.env(envOptions{})
	p := e.plan()
	e.markWrites()
	e.fault(faultproxy.Rule{Kind: delay, Delay: 3 * time.Second, Match: e.realWrites(http.MethodPatch, "deployments", "web")})
	web := stepOf(e.t, p, "Deployment", "web")
	proc := e.start(nil, "release", "apply", "--spec", e.spec, "--approve", p.Hash)
	e.waitJournal("the intent of Deployment web", func(st journal.State) bool { _, ok := st.Steps[web]; return ok })
	e.wantExit(cli.ExitOK, "stop")
	if got := e.wait(proc, time.Minute); got != "exit 1" || !strings.Contains(proc.out.String(), "stopped") {
		e.t.Fatalf("the stopped apply ended %s, want exit 1 saying it stopped:\n%s", got, proc.out.String())
	}
	if got := e.runStatus(); got != string(journal.StatusStopped) {
		e.t.Errorf("status of the stopped run = %s, want stopped", got)
	}
	e.wantStory(p, web, "intent create", "outcome applied")
	e.wantExit(cli.ExitOK, "resume")
}

// cutReadinessReads holds the run after the Deployment's write (a pausing
// failpoint), arms cut (with the path of the Deployment's reads) for its
// readiness reads, and lets it go on.
func cutReadinessReads(c *sc, cut faultproxy.Rule) {
	e := c.env(envOptions{})
	p := e.plan()
	e.markWrites()
	web := stepOf(e.t, p, "Deployment", "web")
	proc := e.start(failpoint(fmt.Sprintf("%s:%d:2s", apply.FailAfterOutcome, len(p.Steps))), "release", "apply", "--spec", e.spec, "--approve", p.Hash)
	e.waitJournal("the outcome of Deployment web", func(st journal.State) bool { return st.Steps[web].Status == journal.StepApplied })
	cut.Match = faultproxy.Match{Method: http.MethodGet, Path: regexp.QuoteMeta(e.objectPath("deployments", "web")) + "$"}
	e.fault(cut)
	if got := e.wait(proc, time.Minute); got != "exit 0" {
		e.t.Fatalf("apply with its readiness reads cut: %s, want exit 0:\n%s", got, proc.out.String())
	}
	e.wantApplied(3)
}

// cutDiagnosisList cuts the pod LISTs that explain a readiness timeout.
func cutDiagnosisList(c *sc) {
	e := c.env(envOptions{extra: "on_failure = \"compensate\"\n", readyTimeout: "3s"})
	e.setManifest("deploy.yaml", deployment("web", simulated(c, sandbox.SimulateImagePullBackOff)))
	p := e.plan()
	e.markWrites()
	e.fault(faultproxy.Rule{Kind: cutAnswer, Match: faultproxy.Match{Method: http.MethodGet, Path: "/namespaces/" + regexp.QuoteMeta(e.ns) + "/pods$"}})
	res := e.apply(p)
	if res.code != cli.ExitFailed {
		e.t.Fatalf("apply of a Deployment that never becomes ready: %s\nwant exit 1", res)
	}
	wantIn(e.t, "the failed apply's error", res.stderr, "Deployment/"+e.ns+"/web", "this run's changes were undone")
	if n := e.proxy.Applied(); len(n) != 1 || n[0] == 0 {
		e.t.Errorf("the proxy cut %v pod LISTs, want at least one", n)
	}
	e.want = undone
}
