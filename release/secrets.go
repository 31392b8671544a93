package release

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/internal/secret"
)

// resolveSecrets gives the composition's declared secrets their values and
// injects them into the rendered objects. Nothing is written: new versions
// stay in memory until saveSecrets, so bad input found later leaves the
// store unchanged. A missing source is bad input.
func (s *session) resolveSecrets(ctx context.Context) error {
	if len(s.declared) == 0 {
		return nil
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
