package apply

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/kube"
	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/progress"
)

// ErrStopped is returned when a run ended on a stop request; it can be
// resumed.
var ErrStopped = errors.New("run stopped on request")

// DefaultParallel is how many writes of a wave the engine keeps in flight
// when Options.Parallel is zero: as many as a plan's dry-runs
// (plan.DefaultParallel). On the 2-core sandbox, 8, 16 and 32 in flight
// applied 1,000 ConfigMaps in about the same time, the API server's CPU
// being the limit (docs/performance.md); a larger control plane takes
// more, a small or shared one fewer. The client's rate limiter
// (kube.DefaultQPS) sits above this and is not meant to bind.
const DefaultParallel = 16

// Options tune the engine. The zero value is valid.
type Options struct {
	// Parallel bounds the writes in flight within a wave; 0 means
	// DefaultParallel. Waves themselves run one after another.
	Parallel     int
	ReadyTimeout time.Duration // readiness wait per wave; 0 means 5 minutes
	Holder       string        // who runs it, for the journal ("user@host pid N")
	// AfterWave, when set, runs after each wave is ready and journaled; an
	// error ends the run as failed (resumable). The CLI takes the cluster
	// lease there once the first wave has created the namespace.
	AfterWave func(ctx context.Context, wave int) error
	// BeforeWrites, when set, runs once a wave's intents are durable in
	// the journal and before the first of its writes is sent; an error
	// ends the run as failed (resumable) with nothing of the wave written.
	// A release whose state is shared pushes its journal there, so that
	// another machine resuming a run killed among the wave's writes finds
	// them in doubt and settles them by reading the cluster.
	BeforeWrites func(ctx context.Context, wave int) error
	// AfterWrites, when set, runs after a wave's writes and their outcomes
	// are journaled, before its readiness wait; an error ends the run as
	// failed (resumable). A release whose state is shared pushes its
	// journal there, so another machine can resume a run killed while it
	// waited.
	AfterWrites func(ctx context.Context, wave int) error
	// Compensate undoes the run's completed steps when it fails, instead of
	// stopping it for a resume.
	Compensate bool
	// Stop, when closed, stops the run after its in-flight writes, as a
	// RequestStop from another process does (the first Ctrl-C). Nil never
	// fires.
	Stop <-chan struct{}
	// StopAsked, when set, reports a stop asked from elsewhere (a release
	// whose state is shared reads the cluster Lease): it is asked wherever
	// a stop request is looked for, and true stops the run as Stop does.
	// It must be cheap or throttle itself: a readiness wait asks it every
	// 300ms.
	StopAsked func(ctx context.Context) bool
	// Checks run in order after the last wave is ready, before the run
	// is recorded as a revision; one that fails fails the run (see
	// ChecksFailedError). Their results are journaled and kept in the
	// revision.
	Checks []Check
	// SkipChecks, when set, says why Checks are not run this time: the
	// journal and the revision record that they were skipped and why.
	SkipChecks string
}

// Engine runs approved plans against one cluster. The caller holds the
// release's lock for the engine's whole run.
type Engine struct {
	Client   *kube.Client
	StateDir string
	Events   progress.Sink // receives what the run does; nil drops it
	Options  Options
}

// Input is an approved plan and what the engine needs to write it.
type Input struct {
	Plan *plan.Plan // the approved plan, as stored
	// Desired holds the rendered objects by reference, Secret values
	// included; steps without one (the target Namespace) use their manifest.
	Desired map[object.Ref]*unstructured.Unstructured
	// Fresh holds resourceVersions read just before the run, so updates are
	// conditional on what the approval check saw.
	Fresh map[object.Ref]string
	Key   []byte // the release's digest key
	// Source says why the plan runs, for history: "apply" or "rollback to N".
	Source string
	// Secrets maps declared secrets to the store versions Desired holds,
	// recorded in the revision.
	Secrets map[string]int
	// Previous returns the objects of the release's latest revision, Secret
	// values included: what a compensation restores updated objects to. It
	// is called only when a run compensates; nil means there is no earlier
	// state, and updated objects are reported, not restored. An error
	// (the revision is damaged) restores nothing: each updated object is
	// reported with it, and created ones are still deleted.
	Previous func() (map[object.Ref]*unstructured.Unstructured, error)
	// Current holds the objects the approval check's LISTs found ready
	// (readiness.Compute of the listed object). Until the run writes (or
	// an earlier session of it wrote) a step, the cluster is as that check
	// read it moments ago, so a wave takes these objects' readiness from
	// there instead of listing them again: a no-op plan finishes without
	// a read of its own. Once anything is written every wave reads its
	// objects. Nil reads them always.
	Current map[object.Ref]bool
}

// Result says how a run ended.
type Result struct {
	Run      string
	Status   journal.RunStatus
	Revision int // the release revision a finished run became
}

// NewRunID returns a fresh run id: start time and a random suffix.
func NewRunID() string { return newRunID(time.Now()) }

// Apply starts a new run of the approved plan, named run (NewRunID).
func (e *Engine) Apply(ctx context.Context, run string, in Input) (*Result, error) {
	if err := CheckDesired(in); err != nil {
		return nil, err
	}
	if err := createRun(e.StateDir, run, in.Source); err != nil {
		return nil, err
	}
	path := JournalPath(e.StateDir, run)
	w, err := journal.Create(path, journalOptions(path))
	if err != nil {
		return nil, err
	}
	defer w.Close()
	r := e.newRun(run, in, w)
	if err := r.append(journal.Record{Type: journal.RunStarted, Run: run, Plan: in.Plan.Hash, Holder: e.Options.Holder, Seal: runSeal(in.Key, run, in.Plan.Hash)}); err != nil {
		return nil, err
	}
	r.fp.hit(ctx, FailAfterRunStarted)
	e.runStarted(run, in.Plan)
	return r.finish(ctx, r.execute(ctx, 0))
}

func (e *Engine) emit(ev progress.Event) { e.Events.Emit(ev) }

func (e *Engine) runStarted(run string, p *plan.Plan) {
	e.emit(progress.Event{Kind: progress.RunStarted, Run: run, Plan: p.Hash, Summary: p.Summary(), Waves: len(p.Waves)})
}

func (e *Engine) runFinished(res *Result, err error) {
	ev := progress.Event{Kind: progress.RunFinished, Run: res.Run, Phase: string(res.Status), Revision: res.Revision}
	if err != nil {
		ev.Error = err.Error()
	}
	e.emit(ev)
}

func (e *Engine) newRun(run string, in Input, w *journal.Writer) *runner {
	o := e.Options
	if o.Parallel <= 0 {
		o.Parallel = DefaultParallel
	}
	if o.ReadyTimeout <= 0 {
		o.ReadyTimeout = 5 * time.Minute
	}
	return &runner{e: e, opts: o, run: run, in: in, j: w, fp: armedFailpoint(), done: map[int]bool{}, inDoubt: map[int]bool{}, written: map[int]written{}, dig: plan.Digester{Key: in.Key}, started: time.Now()}
}

// targetOf is the object a step writes.
func (r *runner) targetOf(i int) *target {
	s := r.in.Plan.Steps[i]
	desired := r.in.Desired[s.Ref]
	if desired == nil {
		desired = &unstructured.Unstructured{Object: s.Manifest}
	}
	return &target{
		res: resourceFor(r.e.Client.Dynamic, s), step: s, desired: desired,
		manager: r.in.Plan.Release.FieldManager, observedF: s.Observed.Fields, dig: r.dig,
	}
}

// finish closes the run in the journal according to how execute ended.
func (r *runner) finish(ctx context.Context, err error) (*Result, error) {
	res := &Result{Run: r.run}
	switch {
	case err == nil:
		err = r.closeFinished(ctx, res)
	case r.opts.Compensate && !errors.Is(err, ErrStopped) && ctx.Err() == nil:
		res.Status = journal.StatusCompensated
		err = r.compensate(ctx, err)
	case errors.Is(err, ErrStopped):
		res.Status = journal.StatusStopped
		if jerr := r.append(journal.Record{Type: journal.RunStopped}); jerr != nil {
			err = errors.Join(err, jerr)
		}
	default:
		res.Status = journal.StatusFailed
		if jerr := r.append(journal.Record{Type: journal.RunFailed, Error: err.Error()}); jerr != nil {
			err = errors.Join(err, jerr)
		}
	}
	clearStop(r.e.StateDir, r.run)
	r.e.runFinished(res, err)
	return res, err
}

// closeFinished ends a run whose every wave is ready: it records the run's
// revision, then journals the run finished. In that order a crash between
// the two leaves a running journal, which resume completes: its history.Add
// finds the revision already there and writes nothing. A revision that
// cannot be stored fails the run (resumable) and undoes nothing: every
// change is in place. One stored whose index entry failed still finishes
// the run, with that error: the revision exists.
func (r *runner) closeFinished(ctx context.Context, res *Result) error {
	r.fp.hit(ctx, FailBeforeRunFinish)
	n, err := r.revision()
	if n == 0 && err != nil {
		res.Status = journal.StatusFailed
		return errors.Join(err, r.append(journal.Record{Type: journal.RunFailed, Error: err.Error()}))
	}
	r.fp.hit(ctx, FailAfterRevision)
	res.Status, res.Revision = journal.StatusFinished, n
	return errors.Join(err, r.append(journal.Record{Type: journal.RunFinished}))
}

// Resume continues an interrupted or stopped run of the same plan: its
// journal is reopened (a torn tail repaired), every in-doubt step settled by
// reading the cluster, and the remaining waves run. No step is written
// twice. A run interrupted while compensating finishes its compensation
// instead, and ends with a *CompensatedError.
func (e *Engine) Resume(ctx context.Context, run string, in Input) (*Result, error) {
	if err := CheckDesired(in); err != nil {
		return nil, err
	}
	path := JournalPath(e.StateDir, run)
	w, recs, tail, err := journal.OpenAppend(path, journalOptions(path))
	if err != nil {
		return nil, err
	}
	defer w.Close()
	if tail != nil {
		e.emit(progress.Event{Kind: progress.Note, Message: fmt.Sprintf("journal: repaired a torn last record (%s)", tail)})
	}
	st, err := resumable(recs, in.Plan.Hash)
	if err != nil {
		return nil, err
	}
	if err := checkRunSeal(recs[0], in.Key); err != nil {
		return nil, err
	}
	// A stop request still here was meant for the run's earlier session
	// (it ended, or its holder died, before noticing): this session is new,
	// and the caller holds the release's lock, so no one else can run it.
	if err := clearStop(e.StateDir, run); err != nil {
		return nil, err
	}
	r := e.newRun(run, in, w)
	if err := r.append(journal.Record{Type: journal.Resumed, Run: run, Holder: e.Options.Holder}); err != nil {
		return nil, err
	}
	e.runStarted(run, in.Plan)
	if err := r.restore(ctx, st); err != nil {
		return r.finish(ctx, err)
	}
	if st.Compensating {
		err := r.resumeCompensation(ctx, st)
		res := &Result{Run: run, Status: journal.StatusCompensated}
		e.runFinished(res, err)
		return res, err
	}
	return r.finish(ctx, r.execute(ctx, st.WavesReady))
}

// resumable replays a journal and checks it can be resumed with the plan.
func resumable(recs []journal.Record, hash string) (journal.State, error) {
	st, err := journal.Replay(recs)
	if err != nil {
		return st, err
	}
	switch {
	case st.Plan != hash:
		return st, fmt.Errorf("the run applies plan %s, not %s", plan.ShortHash(st.Plan), plan.ShortHash(hash))
	case !Resumable(st):
		return st, fmt.Errorf("nothing to resume: the run ended %s", st.Status)
	}
	return st, nil
}
