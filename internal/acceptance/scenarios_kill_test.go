package acceptance

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"strconv"

	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/cli"
	"github.com/pynenc/piceli/internal/faultproxy"
	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/release"
)

// SeedEnv overrides the suite's seed, which picks the pass at which each
// kill scenario kills. Scenario names say the seed and the pass, so a
// failure is reproduced by name.
const SeedEnv = "PICELI_ACCEPTANCE_SEED"

// seedsPerFailpoint is how many kills each failpoint gets (fewer when it
// is passed fewer times in a run).
const seedsPerFailpoint = 3

// passes says how many times a run of the default release (shape) passes
// each failpoint. A compensating run is made to fail at its last wave, so
// it undoes every step of the waves before it.
var passes = map[string]int{
	apply.FailAfterRunStarted:  1,
	apply.FailAfterIntent:      len(shape),
	apply.FailAfterWrite:       sum(shape),
	apply.FailAfterOutcome:     sum(shape),
	apply.FailBeforeWaveReady:  len(shape),
	apply.FailAfterWaveReady:   len(shape),
	apply.FailBeforeRunFinish:  1,
	apply.FailAfterRevision:    1,
	apply.FailAfterCompIntent:  sum(shape[:len(shape)-1]),
	apply.FailAfterCompOutcome: sum(shape[:len(shape)-1]),
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

// suiteSeed is SeedEnv's value, 1 by default.
func suiteSeed() uint64 {
	if n, err := strconv.ParseUint(os.Getenv(SeedEnv), 10, 64); err == nil {
		return n
	}
	return 1
}

// killPasses picks, for seeds 1..seedsPerFailpoint, distinct passes of fp
// at which a run is killed: a permutation of 1..total drawn from the
// suite's seed and the failpoint's name.
func killPasses(fp string, total int) []int {
	h := fnv.New64a()
	h.Write([]byte(fp))
	perm := rand.New(rand.NewPCG(suiteSeed(), h.Sum64())).Perm(total)
	out := make([]int, 0, seedsPerFailpoint)
	for _, p := range perm[:min(total, seedsPerFailpoint)] {
		out = append(out, p+1)
	}
	return out
}

// killScenarios kill a run with SIGKILL at every failpoint the engine
// lists, at several passes each, then resume it: every engine failpoint
// ends with the plan applied (each step exactly once), every compensation
// failpoint with the run's changes undone. The first seed of each is in
// the fast half.
func killScenarios() []scenario {
	var out []scenario
	for _, fp := range apply.Failpoints {
		out = append(out, killAt(fp, false)...)
	}
	for _, fp := range apply.CompensationFailpoints {
		out = append(out, killAt(fp, true)...)
	}
	return out
}

func killAt(fp string, compensating bool) []scenario {
	total, known := passes[fp]
	if !known {
		return []scenario{{
			name: "kill -9 at " + fp, fault: "SIGKILL at " + fp, expected: "a pass count for the failpoint",
			covers: []string{coverFailpoint(fp)}, fast: true,
			run: func(c *sc) {
				c.t.Fatalf("the suite does not know how often a run passes failpoint %s: add it to passes", fp)
			},
		}}
	}
	var out []scenario
	for k, hit := range killPasses(fp, total) {
		s := scenario{
			name:   fmt.Sprintf("kill -9 at %s, seed %d (pass %d of %d), then resume", fp, k+1, hit, total),
			fault:  fmt.Sprintf("SIGKILL at pass %d of %d of %s", hit, total, fp),
			covers: []string{coverFailpoint(fp)}, fast: k == 0,
		}
		armed := fmt.Sprintf("%s:%d", fp, hit)
		if compensating {
			s.fault += " while undoing a run whose Deployment write was answered 422"
			s.expected = "killed; resume finishes the undo (exit 1, compensated): nothing created is left"
			s.run = func(c *sc) { killCompensation(c, armed) }
		} else {
			s.expected = "killed, status interrupted; resume finishes with every step applied once"
			s.run = func(c *sc) { killApply(c, armed) }
		}
		out = append(out, s)
	}
	return out
}

// checkShape fails unless p's waves have the sizes passes assumes.
func (e *env) checkShape(p *plan.Plan) {
	e.t.Helper()
	var got []int
	for _, w := range p.Waves {
		got = append(got, len(w.Nodes))
	}
	if !slices.Equal(got, shape) {
		e.t.Fatalf("the default release's plan has waves of %v steps; the kill scenarios' pass counts assume %v", got, shape)
	}
}

// wantInterrupted fails unless the latest run is running in its journal
// and its holder is gone.
func (e *env) wantInterrupted() {
	e.t.Helper()
	if got := e.runStatus(); got != string(release.PhaseInterrupted) {
		e.t.Fatalf("status of the killed run = %q, want interrupted", got)
	}
}

// wantEachStepAppliedOnce fails unless the latest run's journal says every
// step of p was applied exactly once: by an outcome or a settlement.
func (e *env) wantEachStepAppliedOnce(p *plan.Plan) {
	e.t.Helper()
	recs, _, err := journal.Read(e.journalPath())
	if err != nil {
		e.t.Fatal(err)
	}
	n := map[int]int{}
	for _, r := range recs {
		if (r.Type == journal.Outcome || r.Type == journal.Settled) && r.Result == journal.ResultApplied {
			n[r.Step]++
		}
	}
	for i, s := range p.Steps {
		if n[i] != 1 {
			e.t.Errorf("%s: applied %d times in the journal, want once", s.Ref, n[i])
		}
	}
}

func killApply(c *sc, armed string) {
	e := c.env(envOptions{})
	p := e.plan()
	e.checkShape(p)
	e.markWrites()
	e.wantKilled(e.start(failpoint(armed), "release", "apply", "--spec", e.spec, "--approve", p.Hash))
	e.wantInterrupted()
	e.wantExit(cli.ExitOK, "resume")
	e.wantEachStepAppliedOnce(p)
}

func killCompensation(c *sc, armed string) {
	e := c.env(envOptions{extra: "on_failure = \"compensate\"\n"})
	p := e.plan()
	e.checkShape(p)
	e.markWrites()
	e.fault(faultproxy.Rule{Kind: status, Code: 422, Match: e.realWrites(http.MethodPatch, "deployments", "web")})
	e.wantKilled(e.start(failpoint(armed), "release", "apply", "--spec", e.spec, "--approve", p.Hash))
	e.wantInterrupted()
	res := e.wantExit(cli.ExitFailed, "resume")
	wantIn(e.t, "the resumed undo", res.stderr, "this run's changes were undone")
	e.want = undone
}
