package release

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/internal/secret"
	"github.com/pynenc/piceli/wire"
)

// resolveSecrets gives the composition's declared secrets their values and
// injects them into the rendered objects. Nothing is written: new versions
// stay in memory until saveSecrets, so bad input found later leaves the
// store unchanged. A missing source is bad input.
func (s *session) resolveSecrets(ctx context.Context) error {
	if len(s.declared) == 0 {
		return nil
	}
	if err := s.r.refuseMachineSources(s.declared); err != nil {
		return err
	}
	res := secret.Resolver{Store: secret.View(s.r.StateDir()), BaseDir: s.r.spec.Dir, ReadCluster: s.clusterSecret}
	s.secrets = map[string]*secret.Version{}
	for _, d := range s.declared {
		v, isNew, err := res.Resolve(ctx, d, secret.ResolveOptions{DryRun: true})
		if errors.Is(err, secret.ErrSource) || errors.Is(err, secret.ErrNoCluster) {
			return refuse(err)
		}
		if err != nil {
			return err
		}
		s.secrets[d.Name] = v
		if isNew {
			s.newSecrets = append(s.newSecrets, v)
		}
	}
	secret.Inject(s.objects, s.secrets, s.key)
	return nil
}

// saveSecrets stores the new secret versions this plan or run uses, in the
// owner-only store. It runs when a plan is stored and before a run writes.
func (s *session) saveSecrets() error {
	if len(s.newSecrets) == 0 {
		return nil
	}
	store, err := secret.Open(s.r.StateDir())
	if err != nil {
		return err
	}
	for _, v := range s.newSecrets {
		if err := store.Save(v); err != nil {
			return err
		}
	}
	s.newSecrets = nil
	return nil
}

// secretVersions maps each resolved secret to its version number, for the
// revision a run becomes.
func (s *session) secretVersions() map[string]int {
	if len(s.secrets) == 0 {
		return nil
	}
	out := map[string]int{}
	for name, v := range s.secrets {
		out[name] = v.Number
	}
	return out
}

// clusterSecret reads a key of a Secret in the target namespace, for
// secrets imported from the cluster. Absence is fs.ErrNotExist; errors
// never carry values.
func (s *session) clusterSecret(ctx context.Context, name, key string) ([]byte, error) {
	ns := s.r.spec.Target.Namespace
	sec, err := s.client.Clientset.CoreV1().Secrets(ns).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("Secret/%s/%s: %w", ns, name, fs.ErrNotExist)
	}
	if err != nil {
		return nil, fmt.Errorf("read Secret/%s/%s: %w", ns, name, err)
	}
	raw, ok := sec.Data[key]
	if !ok {
		return nil, fmt.Errorf("Secret/%s/%s has no key %q: %w", ns, name, key, fs.ErrNotExist)
	}
	return raw, nil
}

// refuseMachineSources refuses, in the cluster (Options.InCluster), a
// secret key whose value would come from the operator's machine.
func (r *Release) refuseMachineSources(declared []wire.SecretInfo) error {
	if !r.opts.InCluster {
		return nil
	}
	for _, d := range declared {
		for _, k := range d.Keys {
			if k.Source == wire.SourceFile || k.Source == wire.SourceEnv {
				return refusef("secret %s key %s comes from %s on the operator's machine, which the controller in the cluster does not have: declare it Generated or FromCluster", d.Name, k.Key, machineSourceWord(k.Source))
			}
		}
	}
	return nil
}

func machineSourceWord(s string) string {
	if s == wire.SourceFile {
		return "a file"
	}
	return "an environment variable"
}
