package acceptance

import (
	"os"
	"slices"
	"testing"
	"time"

	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// ModeEnv selects how much of the suite TestAcceptance runs: "full" (what
// `make test-acceptance` sets) runs every scenario; anything else runs the
// fast half, which is what `go test ./...` registers. The other half is not
// skipped there: it is not registered at all.
const ModeEnv = "PICELI_ACCEPTANCE"

// UpdateEnv, set to 1 with a full run (`make test-acceptance UPDATE=1`),
// rewrites docs/acceptance.md with the run's table.
const UpdateEnv = "PICELI_ACCEPTANCE_UPDATE"

// scenario is one fault and what must hold after it.
type scenario struct {
	name     string   // a sentence, unique
	fault    string   // what is injected, for the table
	expected string   // what must happen, for the table
	covers   []string // failpoints and proxy fault kinds it exercises (see coverage_test.go)
	fast     bool     // part of the fast half
	run      func(c *sc)
}

// sc is a running scenario: its test, the sandbox and its table row.
type sc struct {
	t      *testing.T
	sb     *sandboxtest.Sandbox
	row    *row
	covers []string
}

// env sets up the scenario's release (see newEnv) and registers the
// after-checks, which run when the scenario ends.
func (c *sc) env(opts envOptions) *env {
	c.t.Helper()
	return c.envOn(c.sb, opts)
}

// envOn is env for a release in another sandbox.
func (c *sc) envOn(sb *sandboxtest.Sandbox, opts envOptions) *env {
	c.t.Helper()
	e := newEnv(c.t, sb, opts)
	e.row, e.covers = c.row, c.covers
	c.t.Cleanup(e.afterChecks)
	return e
}

// allScenarios is the whole suite, in table order.
func allScenarios() []scenario {
	var all []scenario
	for _, group := range [][]scenario{
		proxyScenarios(), outageScenarios(), killScenarios(), journalScenarios(),
		concurrencyScenarios(), staleScenarios(), inputScenarios(), secretScenarios(),
	} {
		all = append(all, group...)
	}
	return all
}

// TestMain removes the built binary after the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if binary.dir != "" {
		os.RemoveAll(binary.dir)
	}
	os.Exit(code)
}

// fullRun reports whether the whole suite runs.
func fullRun() bool { return os.Getenv(ModeEnv) == "full" }

// TestAcceptance runs the acceptance scenarios against the sandbox, in
// parallel (on a full run after the security table, see runAttackTable),
// then prints the table (and, on a full run with UpdateEnv=1,
// writes it to docs/acceptance.md).
func TestAcceptance(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	piceliBinary(t) // once, before the scenarios race for it
	all := allScenarios()
	checkUnique(t, all)
	tab := &table{full: fullRun()}
	t.Cleanup(func() { tab.finish(t) })
	t.Cleanup(func() { stopExtra(t) })
	if tab.full {
		t.Run("security table", runAttackTable)
	}
	for _, s := range all {
		if !s.fast && !tab.full {
			continue
		}
		r := tab.add(s)
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			t.Cleanup(func() { r.done(t, time.Since(start)) })
			s.run(&sc{t: t, sb: sb, row: r, covers: s.covers})
		})
	}
}

// checkUnique fails for two scenarios of one name.
func checkUnique(t *testing.T, all []scenario) {
	t.Helper()
	var names []string
	for _, s := range all {
		if slices.Contains(names, s.name) {
			t.Fatalf("two scenarios are named %q", s.name)
		}
		if s.run == nil || s.fault == "" || s.expected == "" {
			t.Fatalf("scenario %q lacks a run, a fault or an expected outcome", s.name)
		}
		names = append(names, s.name)
	}
}
