package release

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/object"
	planner "github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/readiness"
	"github.com/pynenc/piceli/internal/render"
	"github.com/pynenc/piceli/internal/spec"
	"github.com/pynenc/piceli/plan"
	"github.com/pynenc/piceli/progress"
)

// RunOptions tune a run of Apply, Resume or Rollback. The zero value is
// valid.
type RunOptions struct {
	// AllowReplace lets the fresh plan of the approval check delete and
	// recreate objects whose immutable fields change, as the approved plan
	// did; it must match how that plan was made.
	AllowReplace bool
	// Reclaim lets the approval check's fresh plan take back fields other
	// managers edited (PlanOptions.Reclaim); an approved plan with a step
	// that takes fields back implies it.
	Reclaim bool
	// Parallel bounds the requests in flight: the approval check's reads
	// and dry-runs, and the writes within a wave (waves run one after
	// another). 0 means 16. It is the knob that spares a small or shared
	// control plane.
	Parallel int
	// Interrupt, when closed, asks the run to stop after its in-flight
	// writes, as Stop does from another process: the run ends "stopped" in
	// its journal and Resume continues it. Cancelling the context instead
	// abandons in-flight requests; the run ends failed, and Resume settles
	// what was in doubt by reading the cluster.
	Interrupt <-chan struct{}
	// SkipChecks runs no check after the last wave; the journal and the
	// revision record that they were skipped.
	SkipChecks bool
	// Events receives the run's progress, one event at a time: the
	// release serialises them, so a handler needs no lock of its own.
	// Nil drops them.
	Events func(progress.Event)

	skipReason string // why checks are skipped when not on request
}

// runSpec is what a run is to do, known once the file lock is held.
type runSpec struct {
	run   string // the run id
	start func(e *apply.Engine, ctx context.Context, run string, in apply.Input) (*apply.Result, error)
	// input checks, under the file lock, that the run may go ahead (the
	// approval check) and returns the engine's input.
	input func(ctx context.Context) (apply.Input, error)
}

// execute takes the release's file lock, checks with rs.input what the run
// is to do, claims the state directory for the release, then takes the
// cluster Lease and runs it. The claim and the Lease come after the check
// so that a refusal writes nothing new; the file lock already keeps other
// runs of this state directory out, and the engine's writes are
// conditional on what the check read.
func (s *session) execute(ctx context.Context, rs runSpec, opts RunOptions) (*Result, error) {
	l, ctx, err := s.lockFile(ctx, rs.run)
	if err != nil {
		return nil, err
	}
	defer l.unlock(ctx)
	in, err := rs.input(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.r.claimOwner(); err != nil {
		return nil, err
	}
	in.Previous = s.previousObjects
	if err := s.saveSecrets(); err != nil {
		return nil, err
	}
	if err := l.ensureLease(ctx, 0); err != nil {
		return nil, err
	}
	rel := s.r.spec.Release
	e := &apply.Engine{Client: s.client, StateDir: rel.StateDir, Events: progress.Serial(opts.Events), Options: apply.Options{
		Holder: l.holder.String(), AfterWave: l.afterWave, BeforeWrites: l.share, AfterWrites: l.share, Stop: opts.Interrupt, StopAsked: l.stopAsked,
		Compensate: rel.OnFailure == spec.OnFailureCompensate, ReadyTimeout: rel.ReadyTimeout, Parallel: opts.Parallel,
		Checks: s.engineChecks(), SkipChecks: opts.skipChecks(),
	}}
	ran, err := rs.start(e, ctx, rs.run, in)
	res, err := resultOf(ran), withCause(ctx, err)
	if res != nil {
		// The archive is written however the run ended; a failure to
		// write it is reported, never in place of the run's own error.
		if aerr := s.r.writeArchive(res, in.Plan); aerr != nil && err == nil {
			return res, aerr
		}
	}
	if err != nil {
		if serr := l.shareEnd(ctx); serr != nil {
			fmt.Fprintf(s.r.log(), "state: %v\n", serr)
		}
		return res, runFailed(res, err)
	}
	if err := s.r.retain(); err != nil {
		return res, err
	}
	return res, l.shareEnd(ctx)
}

// runFailed wraps the error of a run that started; one refused before it
// started keeps its type.
func runFailed(res *Result, err error) error {
	if res == nil {
		return classify(err)
	}
	return &RunFailedError{Result: res, Err: checksFailed(err)}
}

// approvedInput plans again now and checks the approved plan against the
// fresh one; only the steps in only are compared (nil: all). The fresh
// plan re-renders every object and reads the cluster with one LIST per
// kind and namespace; it dry-runs only the objects that changed since the
// approved plan saw them (planner.Options Approved). What those LISTs show
// ready is the engine's Input.Current: a run that writes nothing does not
// read it again.
func (s *session) approvedInput(ctx context.Context, approved *plan.Plan, opts RunOptions, only map[object.Ref]bool) (apply.Input, error) {
	current := map[object.Ref]bool{}
	observe := func(ref object.Ref, live *unstructured.Unstructured) {
		current[ref] = readiness.Compute(live).Status == readiness.Current
	}
	// A plan that takes fields back was made with Reclaim: so is the check.
	reclaim := opts.Reclaim || slices.ContainsFunc(approved.Steps, func(st plan.Step) bool { return len(st.Reclaim) > 0 })
	if err := s.makePlan(ctx, planning{allowReplace: opts.AllowReplace, reclaim: reclaim, parallel: opts.Parallel, approved: approved, approvedObjects: s.fromPlan, observe: observe}); err != nil {
		return apply.Input{}, err
	}
	if err := apply.Approve(approved, s.plan, only); err != nil {
		return apply.Input{}, classify(err)
	}
	in := apply.NewInput(approved, s.plan, render.Manifests(s.objects), s.key, s.source)
	in.Secrets, in.Current = s.secretVersions(), current
	return in, nil
}

// loadApproved loads an approved plan before anything is locked: a plan
// file never changes, and an unknown hash, a plan edited since it was
// planned or stored without a seal (planner.Load), or a blocked plan is
// refused without touching the state directory. pre is the plan
// precheckEnvironment loaded and checked, or nil: a release whose state is
// local takes it as it is (loading and checking the seal of a large plan
// again costs tens of milliseconds, and nothing has changed the state
// directory since), while one whose state was just pulled from the cluster
// loads it again, so that its seal is checked with the digest key it holds
// now.
func (r *Release) loadApproved(hash string, pre *plan.Plan) (*plan.Plan, error) {
	approved := pre
	if approved == nil || r.sharesState() {
		var err error
		approved, _, err = planner.Load(r.StateDir(), hash)
		if errors.Is(err, planner.ErrUnknown) && r.spec.Environment != "" {
			return nil, refusef("%w (the plans of environment %s: a plan made for another environment is never applied to this one)", err, r.spec.Environment)
		}
		if err != nil {
			return nil, refuse(err)
		}
	}
	if err := r.checkEnvironment(approved); err != nil {
		return nil, err
	}
	if b := approved.Blocked(); len(b) > 0 {
		return nil, refuse(&apply.BlockedError{Reasons: b})
	}
	return approved, nil
}

// checkEnvironment refuses a plan made for another environment of the
// spec than the release was opened for, before anything is written: the
// approval of a plan for staging is never an approval for prod. (Its
// values and images are compared with a fresh plan's, plan.Stale.)
func (r *Release) checkEnvironment(p *plan.Plan) error {
	made := ""
	if p.Environment != nil {
		made = p.Environment.Name
	}
	if made == r.spec.Environment {
		return nil
	}
	return refusef("plan %s was made for %s, not for %s: plan this environment and approve that plan's hash", plan.ShortHash(p.Hash), envName(made), envName(r.spec.Environment))
}

// precheckEnvironment is checkEnvironment before the target is contacted,
// for a plan the state directory holds, and returns that plan, loaded and
// its seal checked; a plan it cannot read yet (nil, no error) is checked
// by loadApproved.
func (r *Release) precheckEnvironment(hash string) (*plan.Plan, error) {
	p, _, err := planner.Load(r.StateDir(), hash)
	if err != nil {
		return nil, nil
	}
	return p, r.checkEnvironment(p)
}

// envName names an environment in a message.
func envName(env string) string {
	if env == "" {
		return "the spec without environments"
	}
	return "environment " + env
}
