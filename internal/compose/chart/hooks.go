package chart

import (
	"fmt"
	"sort"
	"strings"

	releasev1 "helm.sh/helm/v4/pkg/release/v1"

	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/refusal"
)

// phase is when Piceli applies a hook.
type phase int

const (
	phasePre  phase = iota // before the chart's objects
	phasePost              // after them
	phaseTest              // never: test hooks are for helm test
)

// phases maps each hook event Piceli honours to its phase. A plan is both
// install and upgrade, so pre-install and pre-upgrade alike run first.
var phases = map[releasev1.HookEvent]phase{
	releasev1.HookPreInstall:  phasePre,
	releasev1.HookPreUpgrade:  phasePre,
	releasev1.HookPostInstall: phasePost,
	releasev1.HookPostUpgrade: phasePost,
	releasev1.HookTest:        phaseTest,
	"test-success":            phaseTest,
}

// hook is one rendered hook object and when it is applied.
type hook struct {
	phase  phase
	weight int
	obj    object.Declared
}

// hookObjects decodes the hooks Piceli applies, refusing those it cannot
// honour, in phase then weight order (stable: Helm's order within).
func hookObjects(label string, hs []*releasev1.Hook) ([]hook, error) {
	var out []hook
	for _, h := range hs {
		origin := label + " " + h.Path
		ph, err := phaseOf(origin, h)
		if err != nil {
			return nil, err
		}
		if ph == phaseTest {
			continue
		}
		objs, err := decode(origin, h.Manifest)
		if err != nil {
			return nil, err
		}
		for _, o := range objs {
			out = append(out, hook{phase: ph, weight: h.Weight, obj: o})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].phase != out[j].phase {
			return out[i].phase < out[j].phase
		}
		return out[i].weight < out[j].weight
	})
	return out, nil
}

// phaseOf returns the phase of h: every event must be of one phase Piceli
// honours, and its delete policy one Piceli can keep.
func phaseOf(origin string, h *releasev1.Hook) (phase, error) {
	what := fmt.Sprintf("%s: %s/%s", origin, h.Kind, h.Name)
	ph := phase(-1)
	for _, e := range h.Events {
		p, ok := phases[e]
		if !ok {
			return 0, refusal.Errorf("%s has hook %q, which Piceli cannot run: it applies a release as one plan and runs no delete or rollback hooks; remove the hook or disable it with the chart's values", what, e)
		}
		if ph >= 0 && p != ph {
			return 0, refusal.Errorf("%s has hooks %s that belong to different phases; Piceli applies an object once per plan", what, joinEvents(h.Events))
		}
		ph = p
	}
	if ph == phaseTest {
		return ph, nil
	}
	for _, p := range h.DeletePolicies {
		if p != releasev1.HookBeforeHookCreation {
			return 0, refusal.Errorf("%s has %s %q, which Piceli cannot honour: a hook is an object of the release, kept until the release no longer declares it", what, releasev1.HookDeleteAnnotation, p)
		}
	}
	return ph, nil
}

func joinEvents(es []releasev1.HookEvent) string {
	s := make([]string, len(es))
	for i, e := range es {
		s[i] = string(e)
	}
	return strings.Join(s, ",")
}

// order returns the pre hooks, the chart's objects and the post hooks,
// each depending on what must be applied (and ready) before it: a hook on
// the hooks of the previous weight of its phase, the chart's objects on
// the last pre hooks, the first post hooks on the chart's objects.
func order(objs []object.Declared, hooks []hook) []object.Declared {
	var out []object.Declared
	var prev []string // origins of the group applied just before
	i := 0
	for i < len(hooks) && hooks[i].phase == phasePre {
		group, next := weightGroup(hooks, i)
		out = append(out, dependOn(group, prev)...)
		prev, i = origins(group), next
	}
	out = append(out, dependOn(objs, prev)...)
	if len(objs) > 0 {
		prev = origins(objs)
	}
	for i < len(hooks) {
		group, next := weightGroup(hooks, i)
		out = append(out, dependOn(group, prev)...)
		prev, i = origins(group), next
	}
	return out
}

// weightGroup returns the hooks from i on with the phase and weight of
// hooks[i], and the index after them.
func weightGroup(hooks []hook, i int) ([]object.Declared, int) {
	var group []object.Declared
	j := i
	for ; j < len(hooks) && hooks[j].phase == hooks[i].phase && hooks[j].weight == hooks[i].weight; j++ {
		group = append(group, hooks[j].obj)
	}
	return group, j
}

// dependOn returns objs, each depending on the objects of origins.
func dependOn(objs []object.Declared, on []string) []object.Declared {
	out := make([]object.Declared, len(objs))
	for i, o := range objs {
		o.DependsOn = append(append([]string(nil), o.DependsOn...), dependencies(on)...)
		out[i] = o
	}
	return out
}

func dependencies(origins []string) []string {
	out := make([]string, len(origins))
	for i, o := range origins {
		out[i] = object.DependencyOnOrigin(o)
	}
	return out
}

func origins(objs []object.Declared) []string {
	out := make([]string, len(objs))
	for i, o := range objs {
		out[i] = o.Origin
	}
	return out
}
