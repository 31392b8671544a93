package spec

import (
	"maps"
	"reflect"
	"slices"
	"strings"
)

// overlay returns d with env's overrides in place of the top-level
// values. Values and images the top level does not declare are left out
// (unknownOverrides reports them).
func overlay(d *decoded, env rawEnvironment) *decoded {
	out := *d
	if env.Target != nil {
		out.target = overlayStruct(d.target, *env.Target)
	}
	if r := env.Release; r != nil {
		out.release = overlayRelease(d.release, *r)
	}
	out.values = maps.Clone(d.values)
	for k, v := range env.Values {
		if _, ok := d.values[k]; ok {
			out.values[k] = v
		}
	}
	out.images = maps.Clone(d.images)
	for k, v := range env.Images {
		if _, ok := d.images[k]; ok {
			out.images[k] = v
		}
	}
	return &out
}

// overlayStruct returns base with every non-nil field of over in place of
// base's: pointers and slices set in the environment win.
func overlayStruct[T any](base, over T) T {
	b, o := reflect.ValueOf(&base).Elem(), reflect.ValueOf(over)
	for i := range b.NumField() {
		if f := o.Field(i); !f.IsNil() {
			b.Field(i).Set(f)
		}
	}
	return base
}

// overlayRelease lays an environment's [release] keys over the top level's.
func overlayRelease(base rawRelease, r rawEnvRelease) rawRelease {
	set := func(dst **string, v *string) {
		if v != nil {
			*dst = v
		}
	}
	set(&base.StateDir, r.StateDir)
	set(&base.State, r.State)
	set(&base.StateNamespace, r.StateNamespace)
	set(&base.OnFailure, r.OnFailure)
	set(&base.ReadyTimeout, r.ReadyTimeout)
	set(&base.Wait, r.Wait)
	if r.StateSigners != nil {
		base.StateSigners = r.StateSigners
	}
	setBool := func(dst *bool, v *bool) {
		if v != nil {
			*dst = *v
		}
	}
	setBool(&base.AllowUnpinnedImages, r.AllowUnpinnedImages)
	setBool(&base.RequirePinnedImages, r.RequirePinnedImages)
	setBool(&base.Prune, r.Prune)
	return base
}

// overriddenKeys lists the dotted keys (as the top level spells them) an
// environment sets.
func overriddenKeys(env rawEnvironment) []string {
	var keys []string
	if env.Target != nil {
		keys = append(keys, setFields("target", *env.Target)...)
	}
	if env.Release != nil {
		keys = append(keys, setFields("release", *env.Release)...)
	}
	for k := range env.Values {
		keys = append(keys, "values."+k)
	}
	for k := range env.Images {
		keys = append(keys, "images."+k)
	}
	return keys
}

// setFields names the non-nil fields of the raw table v under table.
func setFields(table string, v any) []string {
	var keys []string
	rv := reflect.ValueOf(v)
	for i := range rv.NumField() {
		if !rv.Field(i).IsNil() {
			keys = append(keys, table+"."+rv.Type().Field(i).Tag.Get("toml"))
		}
	}
	return keys
}

// overrides reports whether key is one of keys or lies under one.
func overrides(keys []string, key string) bool {
	return slices.ContainsFunc(keys, func(o string) bool {
		return key == o || strings.HasPrefix(key, o+".") || strings.HasPrefix(key, o+"[")
	})
}

// attribute records the problems of one environment's resolved spec: a
// problem with a key the environment sets is the environment's, on its
// line; any other is the top level's, gathered in shared so that it is
// reported once.
func (p *parser) attribute(errs []error, prefix string, keys []string, shared *sharedProblems, env string) {
	for _, err := range errs {
		e := *err.(*Error)
		if e.Key == "" || !overrides(keys, e.Key) {
			shared.add(&e, env)
			continue
		}
		e.Key = prefix + "." + e.Key
		e.Line = p.loc.Line(e.Key)
		p.errs.Errs = append(p.errs.Errs, &e)
	}
}

// sharedProblems are the problems of the top-level tables found while
// resolving each environment, each kept once with the environments it
// showed in.
type sharedProblems struct {
	order []*Error
	envs  map[string][]string // Error() -> environments
}

func (s *sharedProblems) add(e *Error, env string) {
	if s.envs == nil {
		s.envs = map[string][]string{}
	}
	text := e.Error()
	if _, seen := s.envs[text]; !seen {
		s.order = append(s.order, e)
	}
	s.envs[text] = append(s.envs[text], env)
}

// errors returns the problems; one that showed in only some of the total
// environments names them (it comes from how they combine with the top
// level, such as a state namespace with an environment's local state).
func (s *sharedProblems) errors(total int) []error {
	out := make([]error, 0, len(s.order))
	for _, e := range s.order {
		if envs := s.envs[e.Error()]; len(envs) < total {
			e.Msg += " (with environments." + strings.Join(envs, ", environments.") + ")"
		}
		out = append(out, e)
	}
	return out
}
