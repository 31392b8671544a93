package deploy

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"

	"github.com/pynenc/piceli/artifact"
	"github.com/pynenc/piceli/internal/spec"
	"github.com/pynenc/piceli/plan"
	"github.com/pynenc/piceli/progress"
	"github.com/pynenc/piceli/release"
)

// step is one stage ready to run: the digest of its inputs, why it is
// skipped ("" to run it) with what it found, or the work to do.
type step struct {
	inputs string
	skip   string
	out    *Outputs
	do     func(ctx context.Context) (*Outputs, error)
}

// errStop ends the stage loop without an error: Until was reached.
var errStop = errors.New("stopped")

// stages runs every stage in order, up to Until.
func (r *runner) stages(ctx context.Context) error {
	preps := []struct {
		stage Stage
		prep  func(context.Context) (step, error)
	}{
		{StageInputs, r.inputs}, {StageBuild, r.build}, {StageDeliver, r.deliver}, {StagePlan, r.planStage},
	}
	outs := map[Stage]*Outputs{}
	for _, p := range preps {
		out, err := r.stage(ctx, p.stage, p.prep)
		if err != nil {
			return err
		}
		outs[p.stage] = out
		if r.opts.Until == p.stage {
			return errStop
		}
		if p.stage == StageBuild {
			r.built = out
		}
	}
	if r.plan == "" {
		return &ApprovalRequiredError{ID: r.id, Plan: r.planned}
	}
	return r.applyStages(ctx)
}

// stage journals a stage's start, runs or skips it and journals how it
// ended, in a span of its own.
func (r *runner) stage(ctx context.Context, st Stage, prep func(context.Context) (step, error)) (*Outputs, error) {
	ctx, span := r.tel.Tracer().Start(r.traced.ctx, "stage "+string(st))
	defer span.End()
	s, err := prep(ctx)
	if err == nil && s.skip == "" && r.prev != nil {
		if prev, ok := r.prev.ended(st, s.inputs); ok && prev.Status == string(OutcomeDone) && st != StagePlan && st != StageInputs {
			s.skip, s.out = "finished before the interruption, inputs unchanged", prev.Outputs
		}
	}
	start := time.Now()
	if werr := r.w.append(Record{Type: RecordStageStarted, Stage: st, Inputs: s.inputs}); werr != nil {
		return nil, werr
	}
	r.emit(progress.Event{Kind: StageStarted, Stage: string(st)})
	span.SetAttributes(attribute.String("piceli.stage", string(st)), attribute.String("piceli.inputs", s.inputs))
	var out *Outputs
	switch {
	case err != nil:
	case s.skip != "":
		out = s.out
	default:
		out, err = s.do(ctx)
	}
	if err != nil {
		return nil, r.stageFailed(st, span, start, err)
	}
	return out, r.stageEnded(st, span, start, s, out)
}

func (r *runner) stageEnded(st Stage, span spanner, start time.Time, s step, out *Outputs) error {
	outcome := OutcomeDone
	if s.skip != "" {
		outcome = OutcomeSkipped
		span.SetAttributes(attribute.String("piceli.skipped", s.skip))
	}
	span.SetAttributes(attribute.String("piceli.outcome", string(outcome)))
	r.emit(progress.Event{Kind: StageFinished, Stage: string(st), Result: string(outcome), Message: s.skip, DurationMS: time.Since(start).Milliseconds()})
	return r.w.append(Record{Type: RecordStageFinished, Stage: st, Inputs: s.inputs, Outcome: outcome, Reason: s.skip, Outputs: out})
}

func (r *runner) stageFailed(st Stage, span spanner, start time.Time, err error) error {
	msg := redact(err.Error())
	span.SetStatus(codes.Error, msg)
	r.emit(progress.Event{Kind: StageFinished, Stage: string(st), Result: "failed", DurationMS: time.Since(start).Milliseconds(), Error: msg})
	if werr := r.w.append(Record{Type: RecordStageFailed, Stage: st, Error: msg}); werr != nil {
		return errors.Join(err, werr)
	}
	return err
}

// inputs records the verified lock: preflight checked every input.
func (r *runner) inputs(context.Context) (step, error) {
	s := step{inputs: digestOf(r.specDig, r.lockDig)}
	s.do = func(context.Context) (*Outputs, error) { return &Outputs{LockDigest: r.lockDig}, nil }
	return s, nil
}

// build builds the layout unless it was built from this lock.
func (r *runner) build(context.Context) (step, error) {
	s := step{inputs: r.lockDig}
	if r.buildSpec == "" {
		s.skip = "no [images] entry is taken from a build"
		return s, nil
	}
	if imgs, ok := r.layoutImages(); ok {
		s.skip, s.out = "inputs unchanged: the layout was built from lock "+short(r.lockDig), &Outputs{Images: imgs}
		return s, nil
	}
	s.do = func(ctx context.Context) (*Outputs, error) {
		res, err := artifact.Build(ctx, r.buildSpec, artifact.BuildOptions{Log: r.opts.Log})
		if err != nil {
			return nil, err
		}
		out := &Outputs{}
		for _, im := range res.Images {
			out.Images = append(out.Images, Image{Name: im.Name, Reference: im.Reference})
		}
		return out, nil
	}
	return s, nil
}

// layoutImages returns the images of the release's builds when the layout
// holds each of them built from the current lock.
func (r *runner) layoutImages() ([]Image, bool) {
	var out []Image
	for _, name := range r.buildNames() {
		ref, err := artifact.Resolve(r.buildSpec, name, "")
		if err != nil {
			return nil, false
		}
		out = append(out, Image{Name: name, Reference: ref})
	}
	return out, true
}

// buildNames are the build.toml images the release takes, sorted.
func (r *runner) buildNames() []string {
	var names []string
	for _, b := range r.spec.Builds {
		if !slices.Contains(names, b.Image) {
			names = append(names, b.Image)
		}
	}
	slices.Sort(names)
	return names
}

// deliver imports the release's images unless the same images already
// went to the same target.
func (r *runner) deliver(ctx context.Context) (step, error) {
	d := r.spec.Deploy
	if r.buildSpec == "" || d.Deliver == spec.DeliverNone {
		return step{skip: fmt.Sprintf("[deploy] deliver = %q: the images stay in the layout", spec.DeliverNone)}, nil
	}
	imgs, ok := r.layoutImages()
	if !ok {
		return step{}, refusef("the layout no longer holds the built images; build again")
	}
	parts := []string{"deliver", d.Deliver, d.ContainerdAddress, d.ContainerdNamespace, d.Registry}
	for _, im := range imgs {
		parts = append(parts, im.Reference)
	}
	s := step{inputs: digestOf(parts...)}
	layout, opts, err := r.importOptions(ctx, d)
	if err != nil {
		return s, err
	}
	if id, found := deliveredBefore(r.dir, s.inputs); found {
		missing, err := artifact.Missing(ctx, layout, opts)
		if err == nil && len(missing) == 0 {
			s.skip = "inputs unchanged: deploy " + id + " delivered the same images to the same target, which still holds them"
			s.out = &Outputs{Delivery: &Delivery{Target: d.Deliver, Images: len(imgs)}}
			return s, nil
		}
		r.note(fmt.Sprintf("deploy %s delivered these images, but the target lacks %v (%v): delivering again", id, missing, err))
	}
	s.do = func(ctx context.Context) (*Outputs, error) {
		rec, err := artifact.Import(ctx, layout, opts)
		if err != nil {
			return nil, err
		}
		return &Outputs{Delivery: &Delivery{Target: rec.Target.Kind, Address: rec.Target.Address, Receipt: rec.Path, BytesSent: rec.BytesSent, Images: len(rec.Images)}}, nil
	}
	return s, nil
}

// importOptions are the layout and import options of the delivery d.
func (r *runner) importOptions(ctx context.Context, d spec.Deploy) (string, artifact.ImportOptions, error) {
	v, err := artifact.Verify(ctx, r.buildSpec)
	if err != nil {
		return "", artifact.ImportOptions{}, err
	}
	opts := artifact.ImportOptions{Images: r.buildNames(), Grants: r.opts.Grants, Log: r.opts.Log}
	switch d.Deliver {
	case spec.DeliverContainerd:
		opts.Target = artifact.TargetContainerd
		opts.Containerd = artifact.ContainerdOptions{Address: d.ContainerdAddress, Namespace: d.ContainerdNamespace}
	case spec.DeliverRegistry:
		opts.Target = artifact.TargetRegistry
		opts.Registry = artifact.RegistryOptions{Address: d.Registry}
	}
	return v.Layout, opts, nil
}

// planStage plans and stores, unless a plan was approved: the apply stage
// then checks that one against a fresh plan.
func (r *runner) planStage(ctx context.Context) (step, error) {
	s := step{inputs: digestOf(r.specDig, r.lockDig)}
	if r.opts.Approve != "" {
		r.plan = r.opts.Approve
		if r.prev != nil {
			if p, ok := r.prev.Stage(StagePlan); ok && p.Outputs != nil && p.Outputs.Plan != "" {
				if !hashMatches(p.Outputs.Plan, r.opts.Approve) {
					return s, refusef("deploy %s planned %s, not %s: approve that plan, or start a new deploy", r.id, plan.ShortHash(p.Outputs.Plan), r.opts.Approve)
				}
				r.plan = p.Outputs.Plan
			}
		}
		s.skip, s.out = "plan "+plan.ShortHash(r.plan)+" approved; the apply stage checks it against a fresh plan", &Outputs{Plan: r.plan}
		return s, nil
	}
	if r.prev != nil {
		if a, ok := r.prev.Stage(StageApply); ok && a.Inputs != "" {
			r.plan = a.Inputs
			s.skip, s.out = "plan "+plan.ShortHash(a.Inputs)+" was approved and its apply started before the interruption", &Outputs{Plan: a.Inputs}
			return s, nil
		}
	}
	s.do = func(ctx context.Context) (*Outputs, error) {
		p, err := r.rel.Plan(ctx, release.PlanOptions{})
		if err != nil {
			return nil, err
		}
		if b := p.Blocked(); len(b) > 0 {
			return nil, refusef("the plan is blocked and cannot be approved: %s", strings.Join(b, "; "))
		}
		r.planned = p
		return &Outputs{Plan: p.Hash, Summary: p.Summary(), Changed: p.Changed()}, nil
	}
	return s, nil
}

// digestOf is the SHA-256 of parts, each length-prefixed.
func digestOf(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:%s;", len(p), p)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

func short(d string) string {
	d = strings.TrimPrefix(d, "sha256:")
	if len(d) > 12 {
		return d[:12]
	}
	return d
}
