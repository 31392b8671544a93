package release

import (
	"context"
	"encoding/base64"
	"os"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/check"
	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/wire"
)

// CheckOptions tune Check. The zero value is valid.
type CheckOptions struct{}

// Check runs the spec's checks now against the release as the cluster has
// it, in declaration order, and returns how each went; it changes nothing
// of the release (a job check's Job is created and deleted) and takes no
// lock. When one fails the error is a *ChecksFailedError, with the
// results. A spec without checks returns none.
func (r *Release) Check(ctx context.Context, _ CheckOptions) ([]CheckResult, error) {
	s, err := r.open(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.resolveSecrets(ctx); err != nil {
		return nil, err
	}
	defer s.client.CloseIdle()
	runner := s.checkRunner()
	var out, failed []CheckResult
	for _, c := range r.spec.Checks {
		res := CheckResult(runner.Run(ctx, c))
		out = append(out, res)
		if !res.Passed {
			failed = append(failed, res)
		}
	}
	if len(failed) > 0 {
		return out, &ChecksFailedError{Failed: failed, err: &apply.ChecksFailedError{Failed: journalChecks(failed)}}
	}
	return out, nil
}

// skipChecks says why a run skips its checks, or "" when it runs them.
func (o RunOptions) skipChecks() string {
	switch {
	case o.skipReason != "":
		return o.skipReason
	case o.SkipChecks:
		return "skipped on request"
	}
	return ""
}

// engineChecks are the spec's checks as a run of this session runs them.
func (s *session) engineChecks() []apply.Check {
	if len(s.r.spec.Checks) == 0 {
		return nil
	}
	runner := s.checkRunner()
	out := make([]apply.Check, len(s.r.spec.Checks))
	for i, c := range s.r.spec.Checks {
		out[i] = apply.Check{Name: c.Name, Kind: c.Kind(), Run: func(ctx context.Context) journal.Check { return runner.Run(ctx, c) }}
	}
	return out
}

// checkRunner runs checks against the session's cluster: its Services and
// Jobs are the session's objects in the target namespace, its secret
// values are redacted, and a command check's environment lacks every
// variable a secret of the composition is read from.
func (s *session) checkRunner() *check.Runner {
	ns := s.r.spec.Target.Namespace
	r := &check.Runner{
		Client: s.client, Namespace: ns, Release: s.r.spec.Release.Name,
		Jobs: map[string]*unstructured.Unstructured{}, Redact: check.NewRedactor(secretValues(s.objects)),
		Env: withoutVars(os.Environ(), secretEnvVars(s.declared)),
	}
	for _, o := range s.objects {
		ref := object.RefOf(o.Object)
		switch {
		case ref.Namespace != ns:
		case ref.Group == "" && ref.Kind == "Service":
			r.Services = append(r.Services, ref.Name)
		case ref.Group == "batch" && ref.Kind == "Job":
			r.Jobs[ref.Name] = o.Object
		}
	}
	return r
}

// secretValues returns every value the session's Secrets hold.
func secretValues(objs []object.Declared) [][]byte {
	var out [][]byte
	for _, o := range objs {
		if !object.IsSecretRef(object.RefOf(o.Object)) {
			continue
		}
		data, _, _ := unstructured.NestedStringMap(o.Object.Object, "data")
		for _, v := range data {
			if raw, err := base64.StdEncoding.DecodeString(v); err == nil {
				out = append(out, raw)
			}
		}
		str, _, _ := unstructured.NestedStringMap(o.Object.Object, "stringData")
		for _, v := range str {
			out = append(out, []byte(v))
		}
	}
	return out
}

// secretEnvVars names the environment variables secrets are read from.
func secretEnvVars(declared []wire.SecretInfo) []string {
	var out []string
	for _, d := range declared {
		for _, k := range d.Keys {
			if k.Source == wire.SourceEnv {
				out = append(out, k.Ref)
			}
		}
	}
	return out
}

// withoutVars returns env without the variables named.
func withoutVars(env, names []string) []string {
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return slices.Contains(names, name)
	})
}
