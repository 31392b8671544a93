package spec

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/pynenc/piceli/internal/specerr"
	"github.com/pynenc/piceli/internal/statedir"
	pub "github.com/pynenc/piceli/specerr"
)

// rawEnvironment is one [environments.<name>] table: what the environment
// overrides of the target, the per-run release settings, the values and
// the images. Everything it leaves out is the top-level tables' own.
type rawEnvironment struct {
	Target  *rawTarget          `toml:"target"`
	Release *rawEnvRelease      `toml:"release"`
	Values  map[string]string   `toml:"values"`
	Images  map[string]rawImage `toml:"images"`
}

// rawEnvRelease are the [release] keys an environment may override: those
// of one run and of its state, never the release's identity (name, owner,
// field manager, composition).
type rawEnvRelease struct {
	StateDir            *string  `toml:"state_dir"`
	State               *string  `toml:"state"`
	StateNamespace      *string  `toml:"state_namespace"`
	StateSigners        []string `toml:"state_signers"`
	AllowUnpinnedImages *bool    `toml:"allow_unpinned_images"`
	RequirePinnedImages *bool    `toml:"require_pinned_images"`
	Prune               *bool    `toml:"prune"`
	OnFailure           *string  `toml:"on_failure"`
	ReadyTimeout        *string  `toml:"ready_timeout"`
	Wait                *string  `toml:"wait"`
}

// environmentsKey is the table of environments in release.toml.
const environmentsKey = "environments"

// resolve validates the decoded file and returns the spec of env: the file
// itself when it declares no environments, else the environment's
// overrides laid over the top-level tables. Every environment is
// validated, not only env, so a mistake in prod fails a run for dev too.
func (p *parser) resolve(abs string, d *decoded, env string) *Spec {
	if len(d.environments) == 0 {
		s := p.spec(abs, d)
		if env != "" && s != nil {
			e := &Error{File: p.errs.File, Msg: fmt.Sprintf("environment %q: the spec declares no [environments]", env)}
			p.errs.Errs = append(p.errs.Errs, &EnvironmentError{Err: e, Asked: env})
		}
		return s
	}
	specs := p.environments(abs, d)
	if p.errs.Err() != nil {
		return nil
	}
	return p.choose(specs, env)
}

// environments resolves and validates every environment, recording each
// problem once, under the environment's key when its override caused it.
func (p *parser) environments(abs string, d *decoded) map[string]*Spec {
	names := slices.Sorted(maps.Keys(d.environments))
	out := map[string]*Spec{}
	shared := &sharedProblems{}
	for _, name := range names {
		prefix := environmentsKey + "." + name
		p.label(prefix, name)
		env := d.environments[name]
		p.unknownOverrides(prefix, env, d)
		sub := &parser{dir: p.dir, md: p.md, loc: p.loc, errs: specerr.List{File: p.errs.File, Lines: p.loc}, envTarget: env.Target != nil}
		s := sub.spec(abs, overlay(d, env))
		p.attribute(sub.errs.Errs, prefix, overriddenKeys(env), shared, name)
		if s == nil {
			continue
		}
		if env.Release == nil || env.Release.StateDir == nil {
			s.Release.StateDir = statedir.Environment(s.Release.StateDir, name)
		}
		s.Environment, s.Environments = name, names
		out[name] = s
	}
	p.errs.Errs = append(p.errs.Errs, shared.errors(len(names))...)
	p.distinct(out, names)
	return out
}

// choose returns the spec of env, or records why there is none.
func (p *parser) choose(specs map[string]*Spec, env string) *Spec {
	if s, ok := specs[env]; ok {
		return s
	}
	names := slices.Sorted(maps.Keys(specs))
	msg := fmt.Sprintf("environment %q is not declared; the environments are %s", env, strings.Join(names, ", "))
	if env == "" {
		msg = "the spec declares environments " + strings.Join(names, ", ") + ": choose one"
	}
	e := &Error{File: p.errs.File, Line: p.loc.Line(environmentsKey), Key: environmentsKey, Msg: msg}
	p.errs.Errs = append(p.errs.Errs, &EnvironmentError{Err: e, Asked: env, Declared: names})
	return nil
}

// EnvironmentError is the refusal of the environment asked for
// (specerr.EnvironmentError).
type EnvironmentError = pub.EnvironmentError

// unknownOverrides records values and images an environment overrides
// that the top-level tables do not declare: an environment changes the
// release's inputs, it never adds one that a typo would leave unused.
func (p *parser) unknownOverrides(prefix string, env rawEnvironment, d *decoded) {
	for _, k := range slices.Sorted(maps.Keys(env.Values)) {
		if _, ok := d.values[k]; !ok {
			p.errs.Add(prefix+".values."+k, "unknown value: [values] declares %s", listOrNone(slices.Sorted(maps.Keys(d.values))))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(env.Images)) {
		if _, ok := d.images[k]; !ok {
			p.errs.Add(prefix+".images."+k, "unknown image: [images] declares %s", listOrNone(slices.Sorted(maps.Keys(d.images))))
		}
	}
}

// listOrNone joins names, or says there are none.
func listOrNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// distinct records two environments that share a target (kubeconfig,
// context and namespace), a state directory or, with state = "cluster",
// the namespace holding the shared state: each environment's objects,
// lock and state must be its own.
func (p *parser) distinct(specs map[string]*Spec, names []string) {
	targets, dirs, shared := map[[3]string]string{}, map[string]string{}, map[[3]string]string{}
	for _, name := range names {
		s, ok := specs[name]
		if !ok {
			continue
		}
		prefix := environmentsKey + "." + name
		t := [3]string{s.Target.Kubeconfig, s.Target.Context, s.Target.Namespace}
		if other, seen := targets[t]; seen {
			p.errs.Add(prefix+".target", "same kubeconfig, context and namespace as environments.%s; each environment needs its own namespace or cluster", other)
		}
		if other, seen := dirs[s.Release.StateDir]; seen {
			p.errs.Add(prefix+".release.state_dir", "same state directory as environments.%s; each environment keeps its own state", other)
		}
		if st, ok := sharedState(s); ok {
			if other, seen := shared[st]; seen {
				p.errs.Add(prefix+".release.state_namespace", "the shared state of environments.%s is in the same namespace of the same cluster; give each environment its own state_namespace", other)
			}
			shared[st] = name
		}
		targets[t], dirs[s.Release.StateDir] = name, name
	}
}

// sharedState is where a release with state = "cluster" keeps its state
// Secrets: the cluster and the namespace.
func sharedState(s *Spec) ([3]string, bool) {
	if s.Release.State != StateCluster {
		return [3]string{}, false
	}
	ns := s.Release.StateNamespace
	if ns == "" {
		ns = s.Target.Namespace
	}
	return [3]string{s.Target.Kubeconfig, s.Target.Context, ns}, true
}
