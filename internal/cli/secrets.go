package cli

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/pynenc/piceli/internal/history"
	"github.com/pynenc/piceli/internal/kube"
	"github.com/pynenc/piceli/internal/secret"
)

// resolveSecrets gives the composition's declared secrets their values and
// injects them into the rendered objects. Nothing is written: versions that
// are new stay in memory until saveSecrets, so bad input found later leaves
// the store unchanged. A missing source is bad input.
func (pl *planned) resolveSecrets(ctx context.Context) error {
	if len(pl.Composition.Secrets) == 0 {
		return nil
	}
	r := secret.Resolver{Store: secret.View(pl.Spec.Release.StateDir), BaseDir: pl.Spec.Dir, ReadCluster: clusterSecrets(pl.client, pl.Spec.Target.Namespace)}
	pl.secrets = map[string]*secret.Version{}
	for _, d := range pl.Composition.Secrets {
		v, isNew, err := r.Resolve(ctx, d, secret.ResolveOptions{DryRun: true})
		if errors.Is(err, secret.ErrSource) || errors.Is(err, secret.ErrNoCluster) {
			return refused(err)
		}
		if err != nil {
			return err
		}
		pl.secrets[d.Name] = v
		if isNew {
			pl.newSecrets = append(pl.newSecrets, v)
		}
	}
	secret.Inject(pl.Objects, pl.secrets, pl.key)
	return nil
}

// saveSecrets stores the new secret versions this plan or run uses, in the
// owner-only store. It runs when a plan is stored and before a run writes.
func (pl *planned) saveSecrets() error {
	if len(pl.newSecrets) == 0 {
		return nil
	}
	store, err := secret.Open(pl.Spec.Release.StateDir)
	if err != nil {
		return err
	}
	for _, v := range pl.newSecrets {
		if err := store.Save(v); err != nil {
			return err
		}
	}
	pl.newSecrets = nil
	return nil
}

// secretVersions maps each resolved secret to its version number.
func (pl *planned) secretVersions() map[string]int {
	if len(pl.secrets) == 0 {
		return nil
	}
	out := map[string]int{}
	for name, v := range pl.secrets {
		out[name] = v.Number
	}
	return out
}

var secretsGVR = schema.GroupVersionResource{Version: "v1", Resource: "secrets"}

// clusterSecrets reads a key of a Secret in the target namespace, for
// secrets imported from the cluster. Absence is fs.ErrNotExist; errors
// never carry values.
func clusterSecrets(c *kube.Client, ns string) func(context.Context, string, string) ([]byte, error) {
	return func(ctx context.Context, name, key string) ([]byte, error) {
		u, err := c.Dynamic.Resource(secretsGVR).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("Secret/%s/%s: %w", ns, name, fs.ErrNotExist)
		}
		if err != nil {
			return nil, fmt.Errorf("read Secret/%s/%s: %w", ns, name, err)
		}
		raw, ok, _ := unstructured.NestedString(u.Object, "data", key)
		if !ok {
			return nil, fmt.Errorf("Secret/%s/%s has no key %q: %w", ns, name, key, fs.ErrNotExist)
		}
		return base64.StdEncoding.DecodeString(raw)
	}
}

// pruneSecrets applies the retention rule after a finished run: the
// secret.KeepVersions newest versions of each secret, plus every version a
// revision still uses.
func pruneSecrets(stateDir string) error {
	store := secret.View(stateDir)
	names, err := store.Names()
	if err != nil || len(names) == 0 {
		return err
	}
	revs, err := history.List(stateDir)
	if err != nil {
		return err
	}
	for _, name := range names {
		pinned := map[int]bool{}
		for _, r := range revs {
			if n, ok := r.Secrets[name]; ok {
				pinned[n] = true
			}
		}
		if _, err := store.Prune(name, secret.KeepVersions, pinned); err != nil {
			return err
		}
	}
	return nil
}
