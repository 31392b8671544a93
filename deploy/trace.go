package deploy

import (
	"context"
	"errors"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	redactpkg "github.com/pynenc/piceli/internal/redact"
	"github.com/pynenc/piceli/internal/telemetry"
	"github.com/pynenc/piceli/progress"
)

// spanner is the part of a span a stage uses.
type spanner = trace.Span

// spanEnd is an open span of a step or check.
type spanEnd = trace.Span

// tracing holds the deploy's root span and the apply stage's context,
// parents of the stage and step spans.
type tracing struct {
	ctx   context.Context
	root  trace.Span
	apply context.Context
}

// startTelemetry opens the deploy's telemetry session and its root span.
// The trace ID derives from the deploy ID, so a resumed deploy's spans
// join the same trace. Attributes carry names, digests and counts only.
func (r *runner) startTelemetry() {
	endpoint := r.spec.Telemetry.OTLPEndpoint
	if r.opts.OTLPEndpoint != "" {
		endpoint = r.opts.OTLPEndpoint
	}
	r.tel = telemetry.Start(telemetry.Options{
		Endpoint: endpoint, Timeout: r.spec.Telemetry.ExportTimeout, TraceSeed: "piceli deploy " + r.id,
		Resource: []attribute.KeyValue{attribute.String("piceli.release", r.rel.Name()), attribute.String("piceli.namespace", r.spec.Target.Namespace)},
	})
	name := "deploy " + r.rel.Name()
	if r.prev != nil {
		name += " (resumed)"
	}
	ctx, span := r.tel.Tracer().Start(context.Background(), name, trace.WithAttributes(attribute.String("piceli.deploy", r.id)))
	r.traced = tracing{ctx: ctx, root: span, apply: ctx}
}

// onEvent follows the release's events of the apply stage: the engine's
// run id is journaled, each step and check gets a span, and the event goes
// on to the caller.
func (r *runner) onEvent(e progress.Event) {
	switch e.Kind {
	case progress.RunStarted:
		r.mu.Lock()
		r.run = e.Run
		r.mu.Unlock()
		r.w.append(Record{Type: RecordRun, Run: e.Run})
	case progress.StepStarted:
		r.startSpan("step "+e.Ref, e.Ref+" "+e.Action, r.applyCtx(), attribute.String("piceli.ref", e.Ref), attribute.String("piceli.action", e.Action))
	case progress.StepFinished:
		r.endSpan(e.Ref+" "+e.Action, e.Result, e.Error)
	case progress.CheckStarted:
		r.beginChecks()
		r.startSpan("check "+e.Check, "check "+e.Check, r.checksCtx(), attribute.String("piceli.check", e.Check), attribute.String("piceli.check.kind", e.What))
	case progress.CheckFinished:
		r.mu.Lock()
		r.checks.results = append(r.checks.results, CheckOutcome{Name: e.Check, Passed: e.Result == "passed", DurationMS: e.DurationMS})
		r.mu.Unlock()
		r.endSpan("check "+e.Check, e.Result, e.Error)
	}
	r.emit(e)
}

func (r *runner) applyCtx() context.Context {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.traced.apply
}

func (r *runner) checksCtx() context.Context {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.checks.ctx != nil {
		return r.checks.ctx
	}
	return r.traced.ctx
}

func (r *runner) startSpan(name, key string, parent context.Context, attrs ...attribute.KeyValue) {
	_, span := r.tel.Tracer().Start(parent, name, trace.WithAttributes(attrs...))
	r.mu.Lock()
	r.spans[key] = span
	r.mu.Unlock()
}

func (r *runner) endSpan(key, result, errText string) {
	r.mu.Lock()
	span, ok := r.spans[key]
	delete(r.spans, key)
	r.mu.Unlock()
	if !ok {
		return
	}
	span.SetAttributes(attribute.String("piceli.result", result))
	if errText != "" {
		span.SetStatus(codes.Error, redact(errText))
	}
	span.End()
}

// finish journals how the deploy ended, ends its trace with one log record
// of the result, and bounds the export.
func (r *runner) finish(err error) *Result {
	res := &Result{ID: r.id, Status: StatusFinished, Plan: r.plan, Revision: r.rev}
	var approval *ApprovalRequiredError
	switch {
	case errors.Is(err, errStop):
		res.Status = StatusStopped
	case errors.As(err, &approval):
		res.Status, res.Plan = StatusApproval, approval.Plan.Hash
	case err != nil:
		res.Status = StatusFailed
	}
	msg := ""
	if res.Status == StatusFailed {
		msg = redact(err.Error())
	}
	r.w.append(Record{Type: RecordEnded, Status: res.Status, Error: msg})
	r.traced.root.SetAttributes(attribute.String("piceli.status", string(res.Status)), attribute.String("piceli.plan", res.Plan), attribute.Int("piceli.revision", res.Revision))
	if res.Status == StatusFailed {
		r.traced.root.SetStatus(codes.Error, msg)
	}
	r.traced.root.End()
	r.tel.Log(r.traced.ctx, "deploy "+r.id+" of release "+r.rel.Name()+": "+string(res.Status), res.Status == StatusFailed,
		attribute.String("piceli.deploy", r.id), attribute.String("piceli.status", string(res.Status)),
		attribute.String("piceli.plan", res.Plan), attribute.Int("piceli.revision", res.Revision))
	res.Telemetry = TelemetryReport(r.tel.Shutdown())
	if res.Telemetry.Endpoint != "" {
		r.w.append(Record{Type: RecordTelemetry, Telemetry: redact(res.Telemetry.String())})
	}
	if recs, rerr := readJournal(journalPath(r.dir, r.id)); rerr == nil {
		res.State, _ = Replay(recs)
	}
	return res
}

// redact removes from text every environment value long enough to be a
// secret, in every encoding package redact finds, as artifact receipts
// do: errors of the tools a deploy runs may quote their environment.
func redact(text string) string {
	return redactpkg.Strings(redactpkg.Environ()...).Redact(text)
}
