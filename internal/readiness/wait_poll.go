package readiness

import (
	"context"

	"golang.org/x/sync/errgroup"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/internal/object"
)

// poll reads every pending target once, in parallel.
func (w *waiter) poll(ctx context.Context) {
	parallel(w.opts.Parallel, w.pending(), func(i int) { w.read(ctx, i) })
}

// read GETs target i and records its readiness. A failed read keeps the
// last status computed from the object (the client's rate limiter refuses
// a request that would end after ctx's deadline before ctx itself ends).
func (w *waiter) read(ctx context.Context, i int) {
	t := w.objects[i].Target
	u, err := w.c.Resource(t.GVR).Namespace(t.Namespace).Get(ctx, t.Name, metav1.GetOptions{})
	switch {
	case err == nil:
		w.live[i], w.objects[i].Ref, w.objects[i].Result = u, object.RefOf(u), Compute(u)
	case apierrors.IsNotFound(err):
		w.objects[i].Result = inProgress("not found")
	case ctx.Err() == nil && w.live[i] == nil:
		w.objects[i].Result = Result{Status: Unknown, Message: "read: " + err.Error()}
	}
}

// pending returns the indexes of targets not yet current.
func (w *waiter) pending() []int {
	var idx []int
	for i, o := range w.objects {
		if o.Result.Status != Current {
			idx = append(idx, i)
		}
	}
	return idx
}

func (w *waiter) anyFailed() bool {
	for _, o := range w.objects {
		if o.Result.Status == Failed {
			return true
		}
	}
	return false
}

func (w *waiter) targets(idx []int) []Target {
	out := make([]Target, len(idx))
	for k, i := range idx {
		out[k] = w.objects[i].Target
	}
	return out
}

// parallel calls fn for each index, at most limit at a time, and returns
// when all calls have. Each call writes only its own index.
func parallel(limit int, idx []int, fn func(i int)) {
	var g errgroup.Group
	g.SetLimit(limit)
	for _, i := range idx {
		g.Go(func() error { fn(i); return nil })
	}
	_ = g.Wait() // calls never fail
}
