package plan

import (
	"fmt"

	"github.com/pynenc/piceli/internal/object"
)

// Stale compares an approved plan with a fresh plan of the same inputs and
// returns why the approved one no longer holds, one reason per object: a
// different target, a different desired state (the composition renders
// differently), an object created, deleted or recreated (new UID), or a
// field the plan touches changed. Status churn and changes to fields the
// plan does not set are not staleness. No reasons means the approved plan
// may run.
func Stale(approved, fresh *Plan) []string {
	if approved.Target != fresh.Target {
		return []string{fmt.Sprintf("the target differs: approved for %s, now %s", describe(approved.Target), describe(fresh.Target))}
	}
	if approved.Release != fresh.Release {
		return []string{"the release (name, owner or field manager) differs"}
	}
	if !approved.Environment.Same(fresh.Environment) {
		return []string{environmentStale(approved.Environment, fresh.Environment)}
	}
	if !approved.Capabilities.Same(fresh.Capabilities) {
		return []string{capabilitiesStale(approved.Capabilities, fresh.Capabilities)}
	}
	now := map[object.Ref]Step{}
	for _, s := range fresh.Steps {
		now[s.Ref] = s
	}
	var reasons []string
	for _, a := range approved.Steps {
		f, ok := now[a.Ref]
		delete(now, a.Ref)
		if r := stepStale(a, f, ok); r != "" {
			reasons = append(reasons, a.Ref.String()+": "+r)
		}
	}
	for ref := range now {
		reasons = append(reasons, ref.String()+": now part of the plan (declared or prunable since approval)")
	}
	return reasons
}

// environmentStale says how the environment of a fresh plan differs from
// the approved one's.
func environmentStale(approved, fresh *Environment) string {
	name := func(e *Environment) string {
		if e == nil {
			return "no environment"
		}
		return "environment " + e.Name
	}
	if approved == nil || fresh == nil || approved.Name != fresh.Name {
		return fmt.Sprintf("the environment differs: approved for %s, now %s", name(approved), name(fresh))
	}
	return fmt.Sprintf("environment %s's values or images changed since the plan", fresh.Name)
}

// capabilitiesStale says how the cluster's capabilities the charts were
// rendered against changed since the approved plan.
func capabilitiesStale(approved, fresh *Capabilities) string {
	version := func(c *Capabilities) string {
		if c == nil {
			return "no cluster"
		}
		return "Kubernetes " + c.KubeVersion
	}
	return fmt.Sprintf("the charts were rendered against %s, now %s", version(approved), version(fresh))
}

func describe(t Target) string {
	return fmt.Sprintf("server %s context %s namespace %s cluster %s", t.Server, t.Context, t.Namespace, t.ClusterUID)
}

func stepStale(a, f Step, present bool) string {
	switch {
	case !present:
		return "no longer part of the plan"
	case a.Desired != f.Desired:
		return "the composition now renders it differently"
	case a.Observed.Absent && !f.Observed.Absent:
		return "planned absent, now present (uid " + f.Observed.UID + ")"
	case !a.Observed.Absent && f.Observed.Absent:
		return "deleted since the plan"
	case a.Observed.UID != f.Observed.UID:
		return "recreated since the plan (uid " + a.Observed.UID + " is now " + f.Observed.UID + ")"
	case a.Observed.Fields != f.Observed.Fields:
		return "a field the plan sets was changed since the plan"
	case a.Action != f.Action:
		return fmt.Sprintf("the action is now %s, not %s", f.Action, a.Action)
	case a.NoWait != f.NoWait:
		return fmt.Sprintf("the readiness policy changed ([release] wait in release.toml): the plan %s, now it %s", waits(a), waits(f))
	}
	return ""
}

// waits says whether apply waits for a step's object.
func waits(s Step) string {
	if s.NoWait == "" {
		return "waits for it"
	}
	return "does not wait for it (" + s.NoWait.Explain() + ")"
}
