package deploy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/pynenc/piceli/artifact"
	"github.com/pynenc/piceli/internal/lock"
	"github.com/pynenc/piceli/internal/spec"
	"github.com/pynenc/piceli/internal/statedir"
	"github.com/pynenc/piceli/internal/telemetry"
	"github.com/pynenc/piceli/plan"
	"github.com/pynenc/piceli/progress"
	"github.com/pynenc/piceli/refusal"
	"github.com/pynenc/piceli/release"
)

// Options tune Run. The zero value deploys to the end, stopping after the
// plan for approval.
type Options struct {
	// Approve is the hash (or its first 12 to 64 lower-case hex digits,
	// release.CheckApproval) of the plan to apply; anything else is
	// refused before anything is read or written. Empty: Run stops after the plan stage with an
	// *ApprovalRequiredError. A deploy stopped there is continued by a Run
	// given its plan's hash, without building or delivering again.
	Approve string
	// Resume continues the release's latest deploy that did not finish:
	// stages that finished are not run again, the apply stage resumes the
	// engine's run. Without a deploy to continue it is refused.
	Resume bool
	// Until stops the deploy after this stage; empty runs every stage.
	Until Stage
	// Grants are the tools the deliver stage may run (ctr for a
	// containerd delivery); never read from a file.
	Grants []artifact.Grant
	// Deliver, when set, replaces the spec's [deploy] table: "none",
	// "containerd" (to ContainerdAddress, empty for containerd's default
	// socket) or "registry" (to Registry, host:port).
	Deliver           string
	ContainerdAddress string
	Registry          string
	// Env is the environment of the spec to deploy (release.Options Env).
	Env string
	// OTLPEndpoint replaces [telemetry] otlp_endpoint when set.
	OTLPEndpoint string
	// Events receives the deploy's progress: StageStarted and
	// StageFinished, and the release's events of its apply stage, one at
	// a time: Run serialises them, so the handler needs no lock. Nil drops
	// them.
	Events func(progress.Event)
	// Log receives the build's and delivery's lines; nil discards them.
	Log io.Writer
	// AllowExec lets the kubeconfig's exec credential plugin run.
	AllowExec bool
	// Interrupt, when closed, stops the apply stage cleanly after its
	// in-flight writes, as release.RunOptions.Interrupt does; Resume
	// continues it.
	Interrupt <-chan struct{}
}

// The kinds of event a deploy adds to the release's.
const (
	StageStarted  = progress.Kind("stage-started")  // Stage
	StageFinished = progress.Kind("stage-finished") // Stage, Result (done, skipped, failed), Message (why skipped), DurationMS, Error
)

// Result is how a deploy ended.
type Result struct {
	ID        string
	Status    Status
	Plan      string // the plan hash, once planned or approved
	Revision  int    // the release revision the apply stage made, once finished
	State     *State
	Telemetry TelemetryReport
}

// TelemetryReport says how a deploy's telemetry export went.
type TelemetryReport struct {
	Endpoint string        `json:"endpoint,omitempty"` // the OTLP endpoint; empty when telemetry is off
	Took     time.Duration `json:"took"`               // how long the export's shutdown took
	Error    string        `json:"error,omitempty"`    // the first export error, or that the bound was reached
}

// String is the report as one line: "off", "sent to URL in 12ms" or
// "URL: not sent: why".
func (r TelemetryReport) String() string { return telemetry.Report(r).String() }

func refusef(format string, args ...any) error { return refusal.Errorf(format, args...) }

// ApprovalRequiredError stops a deploy after its plan stage: nothing was
// applied. Run again with Options.Approve set to Plan.Hash to continue.
type ApprovalRequiredError struct {
	ID   string
	Plan *plan.Plan
}

func (e *ApprovalRequiredError) Error() string {
	return fmt.Sprintf("deploy %s: approval required: nothing was applied; approve plan %s", e.ID, plan.ShortHash(e.Plan.Hash))
}

// Run deploys the release at specPath: inputs, build, deliver, plan, then
// (with an approved hash) apply and checks, each stage journaled before it
// acts. Bad input (a bad spec, drifted build inputs, a missing grant, a bad
// endpoint, nothing to resume) is refused before anything is written. The
// stage that fails ends the deploy; Resume continues it. Telemetry export
// adds at most its timeout to the deploy and never fails it.
func Run(ctx context.Context, specPath string, opts Options) (*Result, error) {
	r := &runner{opts: opts, events: progress.Serial(opts.Events), spans: map[string]spanEnd{}}
	if err := r.open(ctx, specPath); err != nil {
		return nil, err
	}
	if err := r.begin(); err != nil {
		return nil, err
	}
	defer r.unlock()
	err := r.stages(ctx)
	res := r.finish(err)
	if errors.Is(err, errStop) {
		err = nil
	}
	return res, err
}

// runner is one Run: what it read before starting, then its journal.
type runner struct {
	opts      Options
	events    func(progress.Event) // opts.Events, serialised
	rel       *release.Release
	spec      *spec.Spec
	buildSpec string // build.toml beside the spec, "" when no image is built
	lockDig   string // the verified lock's digest
	specDig   string
	dir       string // state_dir/deploys

	prev *State // the deploy being continued, nil for a new one
	id   string
	w    *writer
	lock *lock.FileLock
	tel  *telemetry.Session

	mu      sync.Mutex
	traced  tracing
	spans   map[string]spanEnd
	checks  checkTracker
	plan    string     // the plan to apply: approved, or made by the plan stage
	planned *plan.Plan // the plan the plan stage made
	built   *Outputs
	rev     int
	run     string // the engine's run of the apply stage

	applyStart time.Time
}

// open reads everything a deploy decides from, and refuses bad input,
// before anything is written.
func (r *runner) open(ctx context.Context, specPath string) error {
	if r.opts.Approve != "" {
		if err := release.CheckApproval(r.opts.Approve); err != nil {
			return err
		}
	}
	if r.opts.Until != "" {
		if _, err := ParseStage(string(r.opts.Until)); err != nil {
			return refusal.New(err)
		}
	}
	if r.opts.OTLPEndpoint != "" {
		if err := spec.CheckEndpoint(r.opts.OTLPEndpoint); err != nil {
			return refusef("the OTLP endpoint: %v", err)
		}
	}
	rel, err := release.Open(specPath, release.Options{Log: r.opts.Log, AllowExec: r.opts.AllowExec, Env: r.opts.Env})
	if err != nil {
		return err
	}
	r.rel = rel
	if r.spec, err = spec.LoadEnv(specPath, r.opts.Env); err != nil {
		return refusal.New(err)
	}
	r.dir = statedir.Path(rel.StateDir(), statedir.Deploys)
	if err := r.overrideDelivery(); err != nil {
		return err
	}
	if err := r.preflight(ctx); err != nil {
		return err
	}
	return r.choose()
}

// overrideDelivery puts Options.Deliver in place of [deploy].
func (r *runner) overrideDelivery() error {
	o := r.opts
	if o.Deliver == "" {
		if o.ContainerdAddress != "" || o.Registry != "" {
			return refusef("a containerd address or registry goes with a delivery target that replaces [deploy]")
		}
		return nil
	}
	d := spec.Deploy{Deliver: o.Deliver, Registry: o.Registry}
	if o.ContainerdAddress != "" {
		abs, err := filepath.Abs(o.ContainerdAddress)
		if err != nil {
			return refusal.New(err)
		}
		d.ContainerdAddress = abs
	}
	switch {
	case d.Deliver != spec.DeliverNone && d.Deliver != spec.DeliverContainerd && d.Deliver != spec.DeliverRegistry:
		return refusef("delivery target %q: want none, containerd or registry", d.Deliver)
	case d.Deliver == spec.DeliverRegistry && d.Registry == "":
		return refusef("delivery to a registry needs its address, HOST:PORT")
	case d.Deliver != spec.DeliverRegistry && d.Registry != "":
		return refusef("a registry address goes with delivery to a registry")
	case d.Deliver != spec.DeliverContainerd && d.ContainerdAddress != "":
		return refusef("a containerd address goes with delivery to containerd")
	}
	r.spec.Deploy = d
	return nil
}

// preflight verifies the build's inputs and the delivery's grants.
func (r *runner) preflight(ctx context.Context) error {
	var err error
	if r.specDig, err = fileDigest(r.spec.Path); err != nil {
		return refusal.New(err)
	}
	if len(r.spec.Builds) > 0 {
		r.buildSpec = filepath.Join(r.spec.Dir, artifact.SpecFile)
		v, err := artifact.Verify(ctx, r.buildSpec)
		if err != nil {
			return err
		}
		r.lockDig = v.LockDigest
	}
	return checkGrants(r.spec.Deploy, r.opts.Grants)
}

// checkGrants refuses, before anything runs, a delivery whose tool is not
// granted and a grant the delivery does not use.
func checkGrants(d spec.Deploy, grants []artifact.Grant) error {
	need := ""
	if d.Deliver == spec.DeliverContainerd {
		need = artifact.ToolCtr
	}
	found := false
	for _, g := range grants {
		if g.Tool != need {
			return refusef("grant of %s: this deploy's delivery ([deploy] deliver = %q) does not run %s", g.Tool, d.Deliver, g.Tool)
		}
		found = true
	}
	if need != "" && !found {
		return &artifact.GrantError{Target: artifact.TargetContainerd, Tool: need}
	}
	return nil
}

// choose picks the deploy to continue: the latest unfinished one with
// Resume, the latest awaiting approval of the approved plan with Approve;
// none otherwise.
func (r *runner) choose() error {
	latest, err := latestDeploy(r.dir)
	if err != nil {
		return err
	}
	switch {
	case r.opts.Resume && (latest == nil || latest.Status == StatusFinished):
		return refusef("nothing to resume: %s", noResume(latest))
	case r.opts.Resume:
		r.prev = latest
	case r.opts.Approve != "" && latest != nil && latest.Status == StatusApproval && matchesPlan(latest, r.opts.Approve):
		r.prev = latest
	}
	return nil
}

func noResume(latest *State) string {
	if latest == nil {
		return "the release has no deploy yet"
	}
	return fmt.Sprintf("deploy %s finished", latest.ID)
}

// matchesPlan reports whether the deploy's plan stage made the plan approve names.
func matchesPlan(s *State, approve string) bool {
	p, ok := s.Stage(StagePlan)
	return ok && p.Outputs != nil && hashMatches(p.Outputs.Plan, approve)
}

// hashMatches reports whether given (a whole plan hash or its first 12 to
// 64 lower-case hex digits, with or without "sha256:") names the plan hash
// full; anything else names no plan.
func hashMatches(full, given string) bool {
	full, given = strings.TrimPrefix(full, "sha256:"), strings.TrimPrefix(given, "sha256:")
	return release.CheckApproval(given) == nil && strings.HasPrefix(full, given)
}

// begin claims the state directory, takes the deploys' lock and opens the
// journal: the first writes of a deploy.
func (r *runner) begin() error {
	if err := r.rel.Claim(); err != nil {
		return err
	}
	r.id = newID(time.Now())
	if r.prev != nil {
		r.id = r.prev.ID
	}
	l, err := lock.File(r.dir, lock.CurrentHolder("deploy "+r.id))
	if err != nil {
		return refusal.Errorf("deploy of release %s: %w", r.rel.Name(), err)
	}
	r.lock = l
	if err := r.openJournal(); err != nil {
		r.unlock()
		return err
	}
	r.startTelemetry()
	return nil
}

func (r *runner) openJournal() error {
	path := journalPath(r.dir, r.id)
	holder := lock.CurrentHolder("deploy " + r.id).String()
	if r.prev == nil {
		w, err := createJournal(path)
		if err != nil {
			return err
		}
		r.w = w
		return r.w.append(Record{Type: RecordStarted, ID: r.id, Release: r.rel.Name(), Holder: holder})
	}
	w, recs, err := openJournal(path)
	if err != nil {
		return err
	}
	r.w = w
	if r.prev, err = Replay(recs); err != nil {
		return err
	}
	return r.w.append(Record{Type: RecordResumed, Holder: holder})
}

func (r *runner) unlock() {
	if r.w != nil {
		r.w.close()
	}
	if r.lock != nil {
		r.lock.Unlock()
	}
}

func (r *runner) emit(e progress.Event) {
	if r.events != nil {
		r.events(e)
	}
}
