package plan

import (
	"errors"
	"fmt"

	"github.com/pynenc/piceli/internal/object"
)

// Validate checks the invariants every plan keeps. The planner calls it
// before storing a plan, apply before running one, and every test that
// builds one.
func Validate(p *Plan) error {
	var errs []error
	if p.Schema != Schema {
		errs = append(errs, fmt.Errorf("schema %q, want %q", p.Schema, Schema))
	}
	if p.Target.Server == "" || p.Target.Context == "" || p.Target.ClusterUID == "" {
		errs = append(errs, errors.New("target lacks its server, context or cluster UID"))
	}
	for i, s := range p.Steps {
		if err := validStep(s); err != nil {
			errs = append(errs, fmt.Errorf("step %d %s: %w", i, s.Ref, err))
		}
	}
	errs = append(errs, validWaves(p)...)
	return errors.Join(errs...)
}

func validStep(s Step) error {
	switch {
	case s.Ref.Kind == "" || s.Ref.Name == "" || s.APIVersion == "" || s.Resource == "":
		return errors.New("incomplete reference")
	case s.Action == Create && !s.Observed.Absent:
		return errors.New("create of an object observed present")
	case s.Action != Create && (s.Observed.Absent || s.Observed.UID == ""):
		return fmt.Errorf("%s of an object not observed", s.Action)
	case s.Action != Delete && (s.Desired == "" || s.Manifest == nil):
		return fmt.Errorf("%s without a desired manifest", s.Action)
	case len(s.Conflicts) > 0 && s.Blocked == "":
		return errors.New("conflicts without a blocked reason")
	case s.NoWait != "" && (s.Action == Delete || s.Ref.Kind == "CustomResourceDefinition"):
		return fmt.Errorf("%s of a %s that is not waited for", s.Action, s.Ref.Kind)
	case s.NoWait != "" && s.NoWait != NoWaitAnnotated && s.NoWait != NoWaitRelease:
		return fmt.Errorf("unknown reason not to wait %q", s.NoWait)
	}
	switch s.Action {
	case Create, Update, NoOp, Adopt, Replace, Delete:
		return nil
	}
	return fmt.Errorf("unknown action %q", s.Action)
}

// validWaves checks that waves hold every step once and that each step's
// dependencies sit in earlier waves.
func validWaves(p *Plan) []error {
	var errs []error
	wave := make(map[int]int, len(p.Steps))
	for w, wv := range p.Waves {
		for _, i := range wv.Nodes {
			if _, dup := wave[i]; dup || i < 0 || i >= len(p.Steps) {
				errs = append(errs, fmt.Errorf("wave %d: step %d is out of range or repeated", w, i))
			}
			wave[i] = w
		}
	}
	if len(wave) != len(p.Steps) {
		errs = append(errs, fmt.Errorf("waves hold %d steps, the plan has %d", len(wave), len(p.Steps)))
	}
	index := map[object.Ref]int{}
	for i, s := range p.Steps {
		index[s.Ref] = i
	}
	for i, s := range p.Steps {
		for _, d := range s.DependsOn {
			if j, ok := index[d]; ok && wave[j] >= wave[i] {
				errs = append(errs, fmt.Errorf("%s runs no later than its dependency %s", s.Ref, d))
			}
		}
	}
	return errs
}
