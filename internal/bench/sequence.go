package bench

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/pynenc/piceli/internal/bench/synth"
)

// The operations measured, as the table names them.
const (
	opRender      = "render"
	opPlanEmpty   = "plan, empty namespace"
	opApplyFresh  = "fresh apply"
	opPlanNoop    = "no-op plan"
	opApplyNoop   = "no-op apply"
	opApplyNoSync = "fresh apply, journal without fsync"
)

// The tools measured.
const (
	toolPiceli  = "piceli"
	toolKubectl = "kubectl"
)

// piceli runs one worker operation and checks that it succeeded.
func (b *bench) piceli(ctx context.Context, bin string, args ...string) (sample, error) {
	head := []string{"worker", fmt.Sprintf("-parallel=%d", b.cfg.Parallel)}
	s, err := measure(ctx, b.c, command{path: bin, args: append(head, args...), env: []string{"PICELI_CACHE_DIR=" + b.cacheDir}, report: true})
	if err != nil {
		return s, err
	}
	if want := bin == b.self; s.Result.Durable != want {
		return s, fmt.Errorf("%s reports a journal that fsyncs: %v, want %v", bin, s.Result.Durable, want)
	}
	if s.Result.Op == "apply" && s.Result.Status != "finished" {
		return s, fmt.Errorf("piceli apply ended %q", s.Result.Status)
	}
	return s, nil
}

// render measures rendering r's composition, which needs no cluster.
func (b *bench) render(ctx context.Context, r row) error {
	spec, err := b.data.spec(r, "bench-render-"+r.slug(), b.t)
	if err != nil {
		return err
	}
	if r.Format == formatGo { // fill the composition cache: the figure is for a warm one
		if _, err := b.piceli(ctx, b.self, "render", spec); err != nil {
			return err
		}
	}
	for range b.cfg.Runs {
		s, err := measure(ctx, nil, command{path: b.self, args: []string{"worker", "render", spec}, env: []string{"PICELI_CACHE_DIR=" + b.cacheDir}, report: true})
		if err != nil {
			return err
		}
		if s.Result.Objects != r.N {
			return fmt.Errorf("render of %s gave %d objects, want %d", r, s.Result.Objects, r.N)
		}
		b.res.add(r, opRender, toolPiceli, s)
	}
	return nil
}

// piceliRun measures, in a new namespace, a plan of the empty namespace,
// its fresh apply, the no-op plan that follows and its no-op apply.
func (b *bench) piceliRun(ctx context.Context, r row, run int) error {
	ns := fmt.Sprintf("bench-p-%s-%d", r.slug(), run)
	spec, err := b.data.spec(r, ns, b.t)
	if err != nil {
		return err
	}
	defer b.cleanup(ctx, ns)
	p, err := b.piceli(ctx, b.self, "plan", spec)
	if err != nil {
		return err
	}
	if p.Result.Counts["create"] != r.N+1 {
		return fmt.Errorf("plan of %s in an empty namespace: %v, want %d creates", r, p.Result.Counts, r.N+1)
	}
	b.res.add(r, opPlanEmpty, toolPiceli, p)
	a, err := b.piceli(ctx, b.self, "apply", spec, p.Result.Hash)
	if err != nil {
		return err
	}
	if a.Result.Written != r.N+1 {
		return fmt.Errorf("fresh apply of %s wrote %d steps, want %d", r, a.Result.Written, r.N+1)
	}
	b.res.add(r, opApplyFresh, toolPiceli, a)
	q, err := b.piceli(ctx, b.self, "plan", spec)
	if err != nil {
		return err
	}
	if q.Result.Changed {
		return fmt.Errorf("plan of %s right after its apply is not a no-op: %v", r, q.Result.Counts)
	}
	b.res.add(r, opPlanNoop, toolPiceli, q)
	n, err := b.piceli(ctx, b.self, "apply", spec, q.Result.Hash)
	if err != nil {
		return err
	}
	if n.Result.Written != 0 {
		return fmt.Errorf("no-op apply of %s wrote %d steps", r, n.Result.Written)
	}
	b.res.add(r, opApplyNoop, toolPiceli, n)
	return nil
}

// noSyncRun measures a fresh apply by the benchmark's build whose journal
// does not fsync, beside piceliRun's, to tell what durability costs.
func (b *bench) noSyncRun(ctx context.Context, r row, run int) error {
	ns := fmt.Sprintf("bench-n-%s-%d", r.slug(), run)
	spec, err := b.data.spec(r, ns, b.t)
	if err != nil {
		return err
	}
	defer b.cleanup(ctx, ns)
	p, err := b.piceli(ctx, b.noSync, "plan", spec)
	if err != nil {
		return err
	}
	a, err := b.piceli(ctx, b.noSync, "apply", spec, p.Result.Hash)
	if err != nil {
		return err
	}
	b.res.add(r, opApplyNoSync, toolPiceli, a)
	return nil
}

// kubectlRun measures, in a new namespace, kubectl apply --server-side of
// the same manifests (then kubectl wait for the Deployments), kubectl diff
// --server-side and a second apply.
func (b *bench) kubectlRun(ctx context.Context, r row, run int) error {
	ns := fmt.Sprintf("bench-k-%s-%d", r.slug(), run)
	file, err := b.data.kubectlFile(r, ns)
	if err != nil {
		return err
	}
	defer b.cleanup(ctx, ns)
	apply := b.kubectl("apply", "--server-side", "--field-manager=bench-kubectl", "-f", file)
	fresh, err := measure(ctx, b.c, apply)
	if err != nil {
		return err
	}
	if synth.Deployments(r.Mix, r.N) > 0 {
		wait := b.kubectl("wait", "--for=condition=Available", "deployment", "--all", "-n", ns, "--timeout=10m")
		w, err := measure(ctx, b.c, wait)
		if err != nil {
			return err
		}
		fresh.Wall, fresh.Requests = fresh.Wall+w.Wall, fresh.Requests+w.Requests
	}
	b.res.add(r, opApplyFresh, toolKubectl, fresh)
	diff := b.kubectl("diff", "--server-side", "--field-manager=bench-kubectl", "-f", file)
	diff.exitOK = []int{1}
	d, err := measure(ctx, b.c, diff)
	if err != nil {
		return err
	}
	if d.Exit != 0 {
		b.res.note(r, opPlanNoop, "kubectl diff reported differences after kubectl's own apply (exit "+strconv.Itoa(d.Exit)+")")
	}
	b.res.add(r, opPlanNoop, toolKubectl, d)
	again, err := measure(ctx, b.c, apply)
	if err != nil {
		return err
	}
	b.res.add(r, opApplyNoop, toolKubectl, again)
	return nil
}

func (b *bench) kubectl(args ...string) command {
	base := []string{"--kubeconfig=" + b.t.Kubeconfig, "--context=" + b.t.Context, "--cache-dir=" + b.kubectlCache}
	return command{path: b.t.Kubectl, args: append(base, args...)}
}

// cleanup deletes a run's namespace, untimed, and waits until it is gone.
func (b *bench) cleanup(ctx context.Context, ns string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 20*time.Minute)
	defer cancel()
	if err := b.c.deleteNamespace(ctx, ns); err != nil {
		b.logf("clean-up: %v", err)
	}
}
