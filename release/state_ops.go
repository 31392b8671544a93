package release

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/internal/atomicfile"
	"github.com/pynenc/piceli/internal/kube"
	"github.com/pynenc/piceli/internal/lock"
	"github.com/pynenc/piceli/internal/state"
	"github.com/pynenc/piceli/internal/statedir"
)

// StateInfo is where a release keeps its state and, when it is shared,
// what the cluster holds.
type StateInfo struct {
	Mode      string `json:"mode"` // "cluster" or "local"
	Namespace string `json:"namespace,omitempty"`
	Cache     string `json:"stateDir"`
	// Files counts the state directory's shared files (for a local
	// release, all its state).
	Files    int            `json:"files"`
	Current  *StateSnapshot `json:"current,omitempty"`
	Previous *StateSnapshot `json:"previous,omitempty"`
	// Problem says what is wrong with the current snapshot (a missing or
	// damaged chunk); empty when it reads whole.
	Problem string `json:"problem,omitempty"`
}

// Show says where the release keeps its state; for a shared one it reads
// the cluster's manifest, verifies the current snapshot's signature and
// checks every chunk of it. Nothing is written.
func (st *State) Show(ctx context.Context) (*StateInfo, error) {
	r := st.r
	files, err := state.Files(r.StateDir())
	if err != nil {
		return nil, err
	}
	info := &StateInfo{Mode: r.spec.Release.State, Cache: r.StateDir(), Files: len(files)}
	if !r.sharesState() {
		return info, nil
	}
	c, err := r.connectTarget(ctx)
	if err != nil {
		return nil, err
	}
	info.Namespace = r.stateNamespace()
	cs, err := r.clusterState(ctx, c)
	if err != nil {
		return nil, err
	}
	m, _, _, problem, err := cs.Read(ctx)
	if m == nil {
		return info, err
	}
	info.Current, info.Previous = snapshotOf(m.Current), snapshotOf(m.Previous)
	info.Problem = problem
	if err != nil {
		info.Problem = err.Error()
	}
	return info, nil
}

// PullStateOptions tune State.Pull. The zero value is valid.
type PullStateOptions struct {
	// AcceptOlder, when set, accepts the cluster's state although it is
	// older than the newest this machine has seen (a restored backup):
	// exactly that generation, 0 meaning that the state is gone. The
	// acceptance is logged and recorded in the cache's sync record. Nil
	// refuses an older state.
	AcceptOlder *int64
}

// Pull brings the state directory up to date from the cluster: the
// newest complete snapshot signed by a key of state_signers, merged
// without losing a file written here and not pushed yet. A snapshot older
// than one this machine has seen is refused (refusal.Is) unless
// opts.AcceptOlder names it. A local release is refused.
func (st *State) Pull(ctx context.Context, opts PullStateOptions) (*StatePulled, error) {
	r := st.r
	if err := r.sharedOnly("pull"); err != nil {
		return nil, err
	}
	if err := r.checkOwner(); err != nil {
		return nil, err
	}
	c, err := r.connectTarget(ctx)
	if err != nil {
		return nil, err
	}
	cs, err := r.clusterState(ctx, c)
	if err != nil {
		return nil, err
	}
	got, err := pull(ctx, cs, opts.AcceptOlder)
	if err != nil {
		return nil, refuse(fmt.Errorf("pull the state of release %s: %w", r.Name(), err))
	}
	if a := got.Accepted; a != nil {
		fmt.Fprintf(r.log(), "state: accepted snapshot %d of release %s in namespace %s although this machine had seen snapshot %d, as asked\n", a.Generation, r.Name(), r.stateNamespace(), a.Seen)
	}
	return pulledOf(got), nil
}

// pull is Pull, or PullOlder when accept is set.
func pull(ctx context.Context, cs *state.Cluster, accept *int64) (*state.Pulled, error) {
	if accept != nil {
		return cs.PullOlder(ctx, *accept)
	}
	return cs.Pull(ctx)
}

func (r *Release) sharedOnly(verb string) error {
	if r.sharesState() {
		return nil
	}
	return refusef("state %s: release %s keeps its state locally ([release] state = %q); set state = \"cluster\" or use \"piceli state migrate cluster\"", verb, r.Name(), r.spec.Release.State)
}

// Export writes the release's whole state (pulled first when shared)
// to w, encrypted with age for passphrase: secret versions and the digest
// key never leave in plain. A passphrase shorter than 12 characters is
// refused before anything is read.
func (st *State) Export(ctx context.Context, w io.Writer, passphrase string) error {
	r := st.r
	if len(passphrase) < state.MinPassphrase {
		return refusef("state export: the passphrase must be at least %d characters", state.MinPassphrase)
	}
	if err := r.checkOwner(); err != nil {
		return err
	}
	if err := r.pullState(ctx, nil); err != nil {
		return err
	}
	files, err := state.Files(r.StateDir())
	if err != nil {
		return err
	}
	return state.Export(w, files, passphrase)
}

// StateExportSchema versions a StateExport.
const StateExportSchema = "piceli.state-export/v1"

// StateExport records an ExportTo that succeeded: the release and the
// encrypted file its state was written to.
type StateExport struct {
	Schema  string `json:"schema"` // StateExportSchema
	Release string `json:"release"`
	File    string `json:"file"`
	Bytes   int    `json:"bytes"`
}

// ExportTo writes what Export writes into the directory dir (created if
// missing) as RELEASE.state.age, atomically and owner-only (0600), and
// says where.
func (st *State) ExportTo(ctx context.Context, dir, passphrase string) (*StateExport, error) {
	if dir == "" {
		return nil, refusef("state export: a directory to write into is required")
	}
	var buf bytes.Buffer
	if err := st.Export(ctx, &buf, passphrase); err != nil {
		return nil, err
	}
	file, err := exportFile(dir, st.r.Name()+".state.age")
	if err != nil {
		return nil, err
	}
	if err := atomicfile.Write(file, buf.Bytes(), 0o600); err != nil {
		return nil, fmt.Errorf("write state export %s: %w", file, err)
	}
	return &StateExport{Schema: StateExportSchema, Release: st.r.Name(), File: file, Bytes: buf.Len()}, nil
}

// Import reads a file Export wrote and merges it into the state
// directory under the release's file lock; a shared release then pushes
// it under the Lease. A wrong passphrase, a damaged file or an export of
// another release is refused before anything is written.
func (st *State) Import(ctx context.Context, in io.Reader, passphrase string) error {
	r := st.r
	files, err := state.Import(in, passphrase)
	if err != nil {
		return refuse(err)
	}
	if err := r.sameOwner(files); err != nil {
		return err
	}
	if err := r.checkWriter(); err != nil {
		return err
	}
	f, err := lock.File(r.StateDir(), lock.CurrentHolder(""))
	if err != nil {
		return refuse(classify(err))
	}
	defer f.Unlock()
	if _, err := state.Merge(r.StateDir(), files, nil); err != nil {
		return err
	}
	if !r.sharesState() {
		return nil
	}
	c, err := r.connectTarget(ctx)
	if err != nil {
		return err
	}
	return r.withLease(ctx, c, func(l *lock.LeaseLock) error {
		_, err := r.pushState(ctx, c, l)
		return err
	})
}

// sameOwner refuses files whose owner record names another release.
func (r *Release) sameOwner(files []state.File) error {
	tmp, err := os.MkdirTemp("", "piceli-state-import-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	for _, f := range files {
		if f.Path == statedir.Owner {
			if err := os.WriteFile(statedir.Path(tmp, statedir.Owner), f.Data, 0o600); err != nil {
				return err
			}
		}
	}
	if err := lock.CheckOwner(tmp, r.owner()); err != nil {
		return refuse(fmt.Errorf("state import: %w", err))
	}
	return r.checkOwner()
}

// withLease runs fn holding the release's namespace Lease, taken for fn
// alone.
func (r *Release) withLease(ctx context.Context, c *kube.Client, fn func(*lock.LeaseLock) error) error {
	t := r.spec.Target
	l, err := lock.Lease(ctx, c.Clientset, t.Namespace, r.Name(), lock.CurrentHolder(""), lock.LeaseOptions{})
	if err != nil {
		return refuse(classify(err))
	}
	defer letGo(ctx, l)
	return fn(l)
}

// Migrate moves the release's state between modes: to "cluster" it
// pushes the state directory to the cluster under the Lease, signed with
// this machine's key, which [release] state_signers must list (refused
// before anything is written otherwise); to "local" it pulls the newest
// complete, trusted snapshot into the state directory, then deletes the
// state Secrets. Migrating to "cluster" again is also how a trusted signer
// re-signs the state from its cache, after a signer was removed from the
// spec. Either way the spec's [release] state must
// then be set to the new mode, which the returned sentence says; the spec
// file is not edited.
func (st *State) Migrate(ctx context.Context, to string) (string, error) {
	r := st.r
	if to != "cluster" && to != "local" {
		return "", refusef("state migrate: destination %q: want \"cluster\" or \"local\"", to)
	}
	if err := r.checkOwner(); err != nil {
		return "", err
	}
	if to == "cluster" {
		if _, err := r.stateKey(); err != nil {
			return "", err
		}
	}
	c, err := r.connectTarget(ctx)
	if err != nil {
		return "", err
	}
	cs, err := r.clusterState(ctx, c)
	if err != nil {
		return "", err
	}
	err = r.withLease(ctx, c, func(l *lock.LeaseLock) error {
		if to == "cluster" {
			_, err := r.pushState(ctx, c, l)
			return err
		}
		if _, err := cs.Pull(ctx); err != nil {
			return stateError(err)
		}
		return r.deleteState(ctx, c)
	})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("now set state = %q in the [release] table of %s", to, r.spec.Path), nil
}

// deleteState deletes every state Secret of the release, with the verbs
// the documented operator Role grants (list and delete).
func (r *Release) deleteState(ctx context.Context, c *kube.Client) error {
	api := c.Clientset.CoreV1().Secrets(r.stateNamespace())
	list, err := api.List(ctx, metav1.ListOptions{LabelSelector: state.StateLabel + "=" + r.Name()})
	if err != nil {
		return fmt.Errorf("list the state Secrets of release %s in namespace %s: %w", r.Name(), r.stateNamespace(), err)
	}
	for _, s := range list.Items {
		err := api.Delete(ctx, s.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &s.UID}})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("delete state Secret/%s/%s: %w", s.Namespace, s.Name, err)
		}
	}
	return nil
}
