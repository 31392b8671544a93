package release

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/pynenc/piceli/internal/kube"
	"github.com/pynenc/piceli/internal/lock"
	"github.com/pynenc/piceli/internal/spec"
	"github.com/pynenc/piceli/internal/state"
)

// State is the release's state store: its state directory and, for a
// release whose state is shared ([release] state = "cluster"), the
// cluster's signed copy. Release.State returns it.
type State struct{ r *Release }

// State returns the release's state store.
func (r *Release) State() *State { return &State{r: r} }

// Shared reports whether the release keeps its state in the cluster
// (release state = "cluster"); otherwise the state directory is the only
// copy.
func (st *State) Shared() bool { return st.r.sharesState() }

// Namespace is the namespace holding a shared release's state Secrets:
// [release] state_namespace, or the target namespace.
func (st *State) Namespace() string { return st.r.stateNamespace() }

func (r *Release) sharesState() bool { return r.spec.Release.State == spec.StateCluster }

func (r *Release) stateNamespace() string {
	if ns := r.spec.Release.StateNamespace; ns != "" {
		return ns
	}
	return r.spec.Target.Namespace
}

// clusterState is the release's state in the cluster behind c: its
// Secrets in the state namespace, read only when signed by a key of the
// spec's state_signers for this release, namespace and cluster (whose
// identity it reads here), and written with this machine's key (set by
// pushState).
func (r *Release) clusterState(ctx context.Context, c *kube.Client) (*state.Cluster, error) {
	uid, err := c.ClusterUID(ctx)
	if err != nil {
		return nil, classify(err)
	}
	return &state.Cluster{
		Client: c.Clientset, Namespace: r.stateNamespace(), Release: r.Name(), Dir: r.StateDir(),
		ClusterUID: uid, Signers: r.spec.Release.StateSigners,
	}, nil
}

// connectTarget opens the spec's target and says which server and context
// it uses.
func (r *Release) connectTarget(ctx context.Context) (*kube.Client, error) {
	t := r.spec.Target
	c, err := kube.Connect(ctx, kube.Options{Kubeconfig: t.Kubeconfig, Context: t.Context, AllowExec: r.opts.AllowExec, WrapTransport: r.opts.wrapTransport})
	if err != nil {
		return nil, classify(err)
	}
	fmt.Fprintln(r.log(), c.Using())
	return c, nil
}

// pullState brings the state directory up to date with the cluster's copy
// of a shared release, connecting when c is nil; it does nothing for a
// local one. A newer snapshot that is torn is reported on the log and the
// previous complete one is used; with none complete the error names every
// missing chunk. A snapshot not signed by a key of state_signers, or older
// than one this machine has seen, is refused (refusal.Is) and
// nothing is merged.
func (r *Release) pullState(ctx context.Context, c *kube.Client) error {
	if !r.sharesState() {
		return nil
	}
	if c == nil {
		var err error
		if c, err = r.connectTarget(ctx); err != nil {
			return err
		}
	}
	cs, err := r.clusterState(ctx, c)
	if err != nil {
		return err
	}
	got, err := cs.Pull(ctx)
	if err != nil {
		return stateError(fmt.Errorf("pull the state of release %s: %w", r.Name(), err))
	}
	if got.Refused != "" {
		fmt.Fprintf(r.log(), "state: %s; using the previous complete snapshot %d\n", got.Refused, got.Generation)
	}
	return nil
}

// stateError marks a refused snapshot (untrusted, or older than seen) as
// refused input: nothing was merged or written.
func stateError(err error) error {
	if errors.Is(err, state.ErrUntrusted) || errors.Is(err, state.ErrOlder) {
		return refuse(err)
	}
	return err
}

// pullShared connects to the target of a shared release and brings the
// state directory up to date, returning the client; for a local release
// it does nothing and returns nil.
func (r *Release) pullShared(ctx context.Context) (*kube.Client, error) {
	if !r.sharesState() {
		return nil, nil
	}
	c, err := r.connectTarget(ctx)
	if err != nil {
		return nil, err
	}
	return c, r.pullState(ctx, c)
}

// pushState shares the state directory in the cluster under lease, the
// namespace's Lease of the release, held, signed with this machine's key.
// Callers decide whether the release shares its state (sharesState);
// migrating to the cluster pushes a release whose spec still says local.
func (r *Release) pushState(ctx context.Context, c *kube.Client, lease *lock.LeaseLock) (*state.Pushed, error) {
	cs, err := r.clusterState(ctx, c)
	if err != nil {
		return nil, err
	}
	if cs.Key, err = r.stateKey(); err != nil {
		return nil, err
	}
	ns, name, id, tr := lease.Fence()
	got, err := cs.Push(ctx, state.Fence{Namespace: ns, Lease: name, Identity: id, Transitions: tr})
	if err != nil {
		return nil, stateError(fmt.Errorf("share the state of release %s: %w", r.Name(), err))
	}
	return got, nil
}

// share pushes what a plan stored, under the release's Lease taken for
// the push alone. The plan stays in the cache, and is shared by the next
// plan or run, when the namespace does not exist yet or the Lease is held
// by a run elsewhere; the log says so.
func (s *session) share(ctx context.Context) error {
	if !s.r.sharesState() || len(s.plan.Blocked()) > 0 {
		return nil
	}
	t := s.r.spec
	l, err := lock.Lease(ctx, s.client.Clientset, t.Target.Namespace, t.Release.Name, lock.CurrentHolder(""), lock.LeaseOptions{})
	switch {
	case errors.Is(err, lock.ErrNoNamespace):
		fmt.Fprintf(s.r.log(), "state: kept in %s until namespace %s exists; the first apply shares it\n", s.r.StateDir(), t.Target.Namespace)
		return nil
	case err != nil:
		fmt.Fprintf(s.r.log(), "state: not shared now (%v); the next plan or run shares it\n", err)
		return nil
	}
	defer letGo(ctx, l)
	_, err = s.r.pushState(ctx, s.client, l)
	return err
}

// share pushes the run's state at a wave boundary: once the wave's
// intents are durable, before its first write (so a machine resuming a run
// killed among the wave's writes finds them in doubt and settles them by
// reading the cluster), and again after its writes. It pushes once the run
// holds the namespace's Lease (before, the namespace does not exist and
// neither can the state). Only a push refused because the Lease was taken
// over fails the run; any other failure is logged and the next boundary
// tries again.
func (l *runLock) share(ctx context.Context, _ int) error {
	if l.lease == nil || !l.s.r.sharesState() {
		return nil
	}
	_, err := l.s.r.pushState(ctx, l.s.client, l.lease)
	if errors.Is(err, state.ErrFenced) {
		return err
	}
	if err != nil {
		fmt.Fprintf(l.s.r.log(), "state: %v; the next wave boundary tries again\n", err)
	}
	return nil
}

// afterWave is the engine's hook after each ready wave: take the
// namespace's Lease once the namespace exists, then share the state.
func (l *runLock) afterWave(ctx context.Context, wave int) error {
	if err := l.ensureLease(ctx, wave); err != nil {
		return err
	}
	return l.share(ctx, wave)
}

// shareEnd pushes the state when a run ends, even after ctx ended (an
// interrupt), within a bounded time; the Lease is still held.
func (l *runLock) shareEnd(ctx context.Context) error {
	if l.lease == nil || !l.s.r.sharesState() {
		return nil
	}
	pctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	_, err := l.s.r.pushState(pctx, l.s.client, l.lease)
	return err
}
