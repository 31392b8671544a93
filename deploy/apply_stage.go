package deploy

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/pynenc/piceli/progress"
	"github.com/pynenc/piceli/release"
)

// checkTracker follows the checks stage through the apply stage's events:
// the engine runs the checks after its last wave.
type checkTracker struct {
	started bool
	start   time.Time
	results []CheckOutcome
	failed  bool
	span    spanner
	ctx     context.Context
}

// applyStages applies the plan and runs the checks: one engine run, whose
// journal the apply stage resumes after an interruption.
func (r *runner) applyStages(ctx context.Context) error {
	inputs := r.plan
	if r.prev != nil {
		_, applied := r.prev.ended(StageApply, inputs)
		_, checked := r.prev.ended(StageChecks, inputs)
		if applied && checked {
			return r.skipBoth(ctx, inputs)
		}
	}
	ctx, span := r.tel.Tracer().Start(r.traced.ctx, "stage "+string(StageApply))
	defer span.End()
	span.SetAttributes(attribute.String("piceli.stage", string(StageApply)), attribute.String("piceli.plan", inputs))
	r.mu.Lock()
	r.traced.apply = ctx
	r.mu.Unlock()
	start := time.Now()
	r.applyStart = start
	if err := r.w.append(Record{Type: RecordStageStarted, Stage: StageApply, Inputs: inputs}); err != nil {
		return err
	}
	r.emit(progress.Event{Kind: StageStarted, Stage: string(StageApply)})
	res, err := r.engineRun(ctx)
	if res != nil {
		r.run, r.rev = res.Run, res.Revision
	}
	return r.afterRun(span, start, inputs, err)
}

// engineRun applies the plan, or resumes the engine's run of it when an
// earlier attempt of this deploy started one.
func (r *runner) engineRun(ctx context.Context) (*release.Result, error) {
	opts := release.RunOptions{Interrupt: r.opts.Interrupt, SkipChecks: r.opts.Until == StageApply, Events: r.onEvent}
	if r.prev != nil {
		if _, ok := r.prev.Stage(StageApply); ok {
			st, err := r.rel.Run(ctx, "")
			if err != nil {
				return nil, err
			}
			if run := st.Run; run != nil && hashMatches(run.Plan, r.plan) && (r.prev.Run == "" || r.prev.Run == run.ID) {
				r.note(fmt.Sprintf("continuing run %s (%s)", run.ID, run.Phase))
				if run.Phase == release.PhaseFinished {
					return finishedRun(run.ID, st), nil
				}
				return r.rel.Resume(ctx, opts)
			}
		}
	}
	return r.rel.Apply(ctx, r.plan, opts)
}

func finishedRun(id string, st *release.RunReport) *release.Result {
	res := &release.Result{Run: id, Phase: release.PhaseFinished}
	if st.Latest != nil && st.Latest.Run == id {
		res.Revision = st.Latest.Number
	}
	return res
}

// afterRun journals how the apply and checks stages ended.
func (r *runner) afterRun(span spanner, start time.Time, inputs string, err error) error {
	r.mu.Lock()
	ct := r.checks
	r.mu.Unlock()
	var checksFailed *release.ChecksFailedError
	out := &Outputs{Plan: r.plan, Run: r.run, Revision: r.rev}
	switch {
	case ct.started && (err == nil || errors.As(err, &checksFailed)):
		return r.endChecks(ct, inputs, err)
	case err != nil:
		return r.stageFailed(StageApply, span, start, err)
	}
	if werr := r.stageEnded(StageApply, span, start, step{inputs: inputs}, out); werr != nil {
		return werr
	}
	reason := "the spec declares no [[checks]]"
	if r.opts.Until == StageApply {
		reason = "--until apply"
	}
	return r.skipStage(StageChecks, inputs, reason)
}

// skipBoth records that a continued deploy had applied and checked.
func (r *runner) skipBoth(ctx context.Context, inputs string) error {
	for _, st := range []Stage{StageApply, StageChecks} {
		if err := r.skipStage(st, inputs, "finished before the interruption"); err != nil {
			return err
		}
	}
	return nil
}

func (r *runner) skipStage(st Stage, inputs, reason string) error {
	_, span := r.tel.Tracer().Start(r.traced.ctx, "stage "+string(st))
	defer span.End()
	if err := r.w.append(Record{Type: RecordStageStarted, Stage: st, Inputs: inputs}); err != nil {
		return err
	}
	r.emit(progress.Event{Kind: StageStarted, Stage: string(st)})
	return r.stageEnded(st, span, time.Now(), step{inputs: inputs, skip: reason}, nil)
}

// beginChecks ends the apply stage and starts the checks stage, when the
// engine runs its first check.
func (r *runner) beginChecks() {
	r.mu.Lock()
	if r.checks.started {
		r.mu.Unlock()
		return
	}
	r.checks.started, r.checks.start = true, time.Now()
	r.mu.Unlock()
	r.w.append(Record{Type: RecordStageFinished, Stage: StageApply, Inputs: r.plan, Outcome: OutcomeDone})
	r.emit(progress.Event{Kind: StageFinished, Stage: string(StageApply), Result: string(OutcomeDone), DurationMS: time.Since(r.applyStart).Milliseconds()})
	r.w.append(Record{Type: RecordStageStarted, Stage: StageChecks, Inputs: r.plan})
	r.emit(progress.Event{Kind: StageStarted, Stage: string(StageChecks)})
	ctx, span := r.tel.Tracer().Start(r.traced.ctx, "stage "+string(StageChecks))
	r.mu.Lock()
	r.checks.span, r.checks.ctx = span, ctx
	r.mu.Unlock()
}

// endChecks journals the checks stage from the results the events carried.
func (r *runner) endChecks(ct checkTracker, inputs string, err error) error {
	defer ct.span.End()
	out := &Outputs{Plan: r.plan, Run: r.run, Revision: r.rev, Checks: ct.results}
	if err != nil {
		return r.stageFailed(StageChecks, ct.span, ct.start, err)
	}
	return r.stageEnded(StageChecks, ct.span, ct.start, step{inputs: inputs}, out)
}

func (r *runner) note(msg string) { r.emit(progress.Event{Kind: progress.Note, Message: msg}) }
