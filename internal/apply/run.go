package apply

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sync/errgroup"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/pynenc/piceli/internal/history"
	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/progress"
)

// runner is one run in progress. It owns the journal writer and the set of
// steps already applied.
type runner struct {
	e       *Engine
	opts    Options
	run     string
	in      Input
	j       *journal.Writer
	fp      *failpoint
	dig     plan.Digester
	mu      sync.Mutex
	done    map[int]bool    // steps applied in this run (or settled applied)
	inDoubt map[int]bool    // steps written whose outcome is unknown
	written map[int]written // what the server returned for them
	// wrote says that a step was written, or may have been, by this run
	// (in any session): the cluster may differ from what the approval
	// check read, whose readiness (Input.Current) then no longer counts.
	wrote bool

	started time.Time
	checked *history.Checks // what the run's checks found, for its revision
}

func (r *runner) append(recs ...journal.Record) error {
	if err := r.j.Append(recs...); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	return nil
}

// stage writes an outcome to the journal without waiting for its fsync
// (journal.Writer.Stage); flush makes every staged record durable.
func (r *runner) stage(rec journal.Record) error {
	if err := r.j.Stage(rec); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	return nil
}

func (r *runner) flush() error {
	if err := r.j.Flush(); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	return nil
}

// restore takes over a replayed state: applied steps are done, in-doubt ones
// settled by reading the cluster.
func (r *runner) restore(ctx context.Context, st journal.State) error {
	r.wrote = len(st.Steps) > 0 // a step with a record has had an intent
	for i, s := range st.Steps {
		if s.Status == journal.StepApplied {
			r.done[i] = true
			r.written[i] = written{UID: s.UID, ResourceVersion: s.ResourceVersion}
		}
	}
	for _, i := range st.InDoubt() {
		if err := r.settle(ctx, i); err != nil {
			return err
		}
	}
	return nil
}

func (r *runner) settle(ctx context.Context, i int) error {
	t := r.targetOf(i)
	ok, w, err := t.landed(ctx)
	if err != nil {
		return fmt.Errorf("settle %s: %w", t.step.Ref, err)
	}
	return r.recordSettled(t, i, ok, w)
}

// recordSettled journals what reading the cluster said of an in-doubt
// step: applied (as w) or not.
func (r *runner) recordSettled(t *target, i int, ok bool, w written) error {
	rec := journal.Record{Type: journal.Settled, Step: i, Ref: &t.step.Ref, Result: journal.ResultNotApplied}
	if ok {
		rec.Result, rec.UID, rec.ResourceVersion, rec.Fields = journal.ResultApplied, w.UID, w.ResourceVersion, w.Fields
		r.done[i], r.written[i] = true, w
	}
	r.e.emit(progress.Event{Kind: progress.Settled, Ref: t.step.Ref.String(), Action: string(t.step.Action), Result: string(rec.Result)})
	return r.append(rec)
}

// stopRequested reports whether the run was asked to stop: by Stop from
// another process (a request file), through Options.Stop or, from another
// machine, through Options.StopAsked.
func (r *runner) stopRequested(ctx context.Context) bool {
	select {
	case <-r.opts.Stop:
		return true
	default:
	}
	if stopRequested(r.e.StateDir, r.run) {
		return true
	}
	return r.opts.StopAsked != nil && r.opts.StopAsked(ctx)
}

// execute runs the waves from the first not yet ready, then the checks.
func (r *runner) execute(ctx context.Context, from int) error {
	for n := from; n < len(r.in.Plan.Waves); n++ {
		if r.stopRequested(ctx) {
			return ErrStopped
		}
		if err := r.wave(ctx, n); err != nil {
			return err
		}
	}
	return r.checks(ctx)
}

// wave writes one wave's pending steps, waits for readiness and journals it.
func (r *runner) wave(ctx context.Context, n int) error {
	w := r.in.Plan.Waves[n]
	r.e.emit(progress.Event{Kind: progress.WaveStarted, Wave: n, Waves: len(r.in.Plan.Waves), Stage: string(w.Stage), Objects: len(w.Nodes)})
	if err := r.writeAll(ctx, n, r.pending(w.Nodes)); err != nil {
		return err
	}
	if hook := r.opts.AfterWrites; hook != nil {
		if err := hook(ctx, n); err != nil {
			return err
		}
	}
	if err := r.ready(ctx, n, w.Nodes); err != nil {
		return err
	}
	r.fp.hit(ctx, FailBeforeWaveReady)
	if err := r.append(journal.Record{Type: journal.WaveReady, Wave: n}); err != nil {
		return err
	}
	r.fp.hit(ctx, FailAfterWaveReady)
	r.e.emit(progress.Event{Kind: progress.WaveReady, Wave: n, Waves: len(r.in.Plan.Waves), Objects: len(w.Nodes)})
	if r.opts.AfterWave != nil {
		return r.opts.AfterWave(ctx, n)
	}
	return nil
}

// pending returns the steps of a wave that still need a write.
func (r *runner) pending(nodes []int) []int {
	var out []int
	for _, i := range nodes {
		if r.in.Plan.Steps[i].Action != plan.NoOp && !r.done[i] {
			out = append(out, i)
		}
	}
	return out
}

// writeAll journals the intents of steps in one commit, runs the
// BeforeWrites hook, then writes them in parallel. Each outcome goes into the journal as it arrives, without
// waiting for an fsync of its own; one fsync makes all of them durable
// once the wave's writes are done, before its readiness wait (a failed
// wave's are made durable with the run's failure). An outcome a crash of
// the machine loses before then leaves its step in doubt: resume settles
// it by reading the cluster, as for a write whose answer never came.
func (r *runner) writeAll(ctx context.Context, wave int, steps []int) error {
	if len(steps) == 0 {
		return nil
	}
	intents := make([]journal.Record, len(steps))
	for k, i := range steps {
		s := r.in.Plan.Steps[i]
		intents[k] = journal.Record{Type: journal.Intent, Step: i, Action: string(s.Action), Ref: &s.Ref}
	}
	r.wrote = true
	if err := r.append(intents...); err != nil {
		return err
	}
	r.fp.hit(ctx, FailAfterIntent)
	if hook := r.opts.BeforeWrites; hook != nil {
		if err := hook(ctx, wave); err != nil {
			return err
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(r.opts.Parallel)
	// A stop asked in the middle of a large wave is heeded between its
	// writes: no more is sent, the writes in flight settle, and the run
	// stops. The steps never sent are journaled as settled, not applied,
	// so none is left in doubt.
	unsent := -1
	for k, i := range steps {
		if r.stopRequested(ctx) {
			unsent = k
			break
		}
		g.Go(func() error { return r.writeStep(gctx, wave, i) })
	}
	if err := g.Wait(); err != nil {
		return err
	}
	if unsent >= 0 {
		recs := make([]journal.Record, 0, len(steps)-unsent)
		for _, i := range steps[unsent:] {
			recs = append(recs, journal.Record{Type: journal.Settled, Step: i, Ref: &r.in.Plan.Steps[i].Ref, Result: journal.ResultNotApplied})
		}
		if err := r.append(recs...); err != nil {
			return err
		}
	}
	if err := r.flush(); err != nil {
		return err
	}
	if unsent >= 0 {
		return ErrStopped
	}
	return nil
}

// writeStep performs one step and journals its outcome, unless the write
// was abandoned and its outcome is unknown.
func (r *runner) writeStep(ctx context.Context, wave, i int) error {
	t := r.targetOf(i)
	r.e.emit(progress.Event{Kind: progress.StepStarted, Wave: wave, Ref: t.step.Ref.String(), Action: string(t.step.Action)})
	w, err := t.write(ctx, r.in.Fresh[t.step.Ref])
	r.fp.hit(ctx, FailAfterWrite)
	if err != nil && lostAnswer(ctx, err) {
		var settled bool
		var jerr error
		settled, w, err, jerr = r.retryLost(ctx, t, i, err)
		if jerr != nil {
			return jerr
		}
		if settled {
			r.e.emit(stepFinished(wave, t.step, journal.ResultApplied, nil))
			return nil
		}
	}
	if err != nil && (unknownOutcome(ctx, err) || lostAnswer(ctx, err)) {
		// Whether the write landed is unknown, so no outcome is journaled:
		// resume, or compensation, settles the step by reading the cluster.
		r.mu.Lock()
		r.inDoubt[i] = true
		r.mu.Unlock()
		return fmt.Errorf("%s %s (it may have been applied): %w", t.step.Action, t.step.Ref, err)
	}
	rec := journal.Record{Type: journal.Outcome, Step: i, Ref: &t.step.Ref, Result: journal.ResultApplied, UID: w.UID, ResourceVersion: w.ResourceVersion, Fields: w.Fields}
	cause := err
	if err != nil {
		err = fmt.Errorf("%s %s: %w", t.step.Action, t.step.Ref, err)
		rec.Result, rec.Error = journal.ResultFailed, err.Error()
	}
	if jerr := r.stage(rec); jerr != nil {
		return jerr
	}
	r.fp.hit(ctx, FailAfterOutcome)
	r.e.emit(stepFinished(wave, t.step, rec.Result, cause))
	if err == nil {
		r.mu.Lock()
		r.done[i], r.written[i] = true, w
		r.mu.Unlock()
	}
	return err
}

// revision records the finished run as the release's next revision: every
// object the plan declares, Secret values as keyed digests, and whether
// the plan changed nothing. The manifests
// are the approved plan's, the one record of what every session of the run
// wrote (a resume neither compares nor rewrites the steps written before):
// plan.Load refused the plan unless its seal held and each manifest matched
// its step's Desired digest, and Approve checked that the rendered objects
// each session wrote digest to that Desired. It is safe to call again for
// the same run (a resume after a crash that followed it): history.Add
// answers the revision already recorded.
func (r *runner) revision() (int, error) {
	rev := history.Revision{Plan: r.in.Plan.Hash, Run: r.run, Source: r.in.Source, Started: r.started, Finished: time.Now(),
		Outcome: string(journal.StatusFinished), Secrets: r.in.Secrets, Checks: r.checked, Unchanged: !r.in.Plan.Changed()}
	for _, s := range r.in.Plan.Steps {
		if s.Action != plan.Delete {
			rev.Objects = append(rev.Objects, history.Object{Ref: s.Ref, APIVersion: s.APIVersion, Resource: s.Resource, Manifest: s.Manifest})
		}
	}
	n, err := history.Add(r.e.StateDir, r.in.Key, rev)
	if err != nil {
		return n, fmt.Errorf("record revision: %w", err) // n is set when the revision exists (only its index entry failed)
	}
	return n, nil
}

// stepFinished is the event of a step's outcome; its Error is the cause
// alone, since the event names the action and the object.
func stepFinished(wave int, s plan.Step, result journal.Result, cause error) progress.Event {
	ev := progress.Event{Kind: progress.StepFinished, Wave: wave, Ref: s.Ref.String(), Action: string(s.Action), Result: string(result)}
	if cause != nil {
		ev.Error = cause.Error()
	}
	return ev
}

// Retries of a write whose answer was lost, and the pause before the first
// (doubled before each next one).
const (
	lostAnswerRetries = 3
	lostAnswerPause   = 250 * time.Millisecond
)

// retryLost settles a write whose answer was lost while the run goes on:
// it reads the cluster and journals what it found. If the write landed the
// step is done (settled true) and is not written again; if it did not, a
// new intent is journaled and the write retried, at most lostAnswerRetries
// times. It returns the last write's result (an answer still lost leaves
// the step in doubt, for resume or compensation) and, apart, a journal
// error, which ends the run.
func (r *runner) retryLost(ctx context.Context, t *target, i int, err error) (settled bool, w written, werr, jerr error) {
	pause := lostAnswerPause
	for range lostAnswerRetries {
		select {
		case <-ctx.Done():
			return false, written{}, err, nil
		case <-time.After(pause):
		}
		pause *= 2
		ok, lw, serr := t.landed(ctx)
		if serr != nil {
			return false, written{}, err, nil // still unknown; keep the write's own error
		}
		if jerr := r.recordSettledLocked(t, i, ok, lw); jerr != nil || ok {
			return ok, lw, nil, jerr
		}
		intent := journal.Record{Type: journal.Intent, Step: i, Action: string(t.step.Action), Ref: &t.step.Ref}
		if jerr := r.append(intent); jerr != nil {
			return false, written{}, nil, jerr
		}
		w, err = t.write(ctx, r.in.Fresh[t.step.Ref])
		if err == nil || !lostAnswer(ctx, err) {
			return false, w, err, nil
		}
	}
	return false, written{}, err, nil
}

// recordSettledLocked is recordSettled for a step written concurrently
// with others.
func (r *runner) recordSettledLocked(t *target, i int, ok bool, w written) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.recordSettled(t, i, ok, w)
}

// lostAnswer reports whether a write's answer was lost while the run is
// still going: the connection broke or timed out, or the server (or a
// proxy before it) answered with a 5xx error, which does not say whether
// the write was carried out. Reading the cluster tells.
func lostAnswer(ctx context.Context, err error) bool {
	if ctx.Err() != nil || errors.Is(err, context.Canceled) {
		return false
	}
	var se apierrors.APIStatus
	if errors.As(err, &se) && se.Status().Code >= 500 {
		return true
	}
	return unknownOutcome(ctx, err)
}

// unknownOutcome reports whether a failed write may still have been
// applied: the request was abandoned (the run's context ended: a second
// Ctrl-C, a lost Lease, a sibling write's failure), the server timed out
// while it may still be processing it, or the connection broke after the
// request may have been sent.
func unknownOutcome(ctx context.Context, err error) bool {
	var netErr net.Error
	switch {
	case ctx.Err() != nil, errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return true
	case apierrors.IsTimeout(err), apierrors.IsServerTimeout(err):
		return true
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return true
	case errors.As(err, &netErr) && netErr.Timeout():
		return true
	}
	return false
}
