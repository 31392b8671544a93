package apply

import (
	"context"
	"fmt"
	"strings"

	"github.com/pynenc/piceli/internal/history"
	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/progress"
)

// Check is one post-release check the engine runs after a run's last wave
// is ready. Run does the checking, bounded by its own timeouts, and
// reports how it went; it must not return a secret value.
type Check struct {
	Name string
	Kind string
	Run  func(ctx context.Context) journal.Check
}

// ChecksFailedError ends a run whose checks did not all pass. The run
// then ends as any failed run does: failed (resumable: a resume runs the
// checks again) or, when it compensates, compensated.
type ChecksFailedError struct {
	Failed []journal.Check // in declaration order
}

func (e *ChecksFailedError) Error() string {
	parts := make([]string, len(e.Failed))
	for i, c := range e.Failed {
		parts[i] = fmt.Sprintf("%q: %s", c.Name, c.Error)
	}
	if len(parts) == 1 {
		return "check " + parts[0]
	}
	return fmt.Sprintf("%d checks failed: %s", len(parts), strings.Join(parts, "; "))
}

// checks runs the run's checks in declaration order, every one of them,
// journaling each before it starts and after it ends, and keeps what they
// found for the revision. It fails with *ChecksFailedError when one
// failed, and with ErrStopped when a stop is asked for between two.
func (r *runner) checks(ctx context.Context) error {
	if why := r.opts.SkipChecks; why != "" {
		r.checked = &history.Checks{Skipped: true, Reason: why}
		r.e.emit(progress.Event{Kind: progress.Note, Message: "checks skipped: " + why})
		return r.append(journal.Record{Type: journal.ChecksSkipped, Error: why})
	}
	if len(r.opts.Checks) == 0 {
		return nil
	}
	res := &history.Checks{}
	var failed []journal.Check
	for _, c := range r.opts.Checks {
		if r.stopRequested(ctx) {
			return ErrStopped
		}
		got, err := r.runCheck(ctx, c)
		if err != nil {
			return err
		}
		res.Results = append(res.Results, got)
		if !got.Passed {
			failed = append(failed, got)
		}
	}
	r.checked = res
	if len(failed) > 0 {
		return &ChecksFailedError{Failed: failed}
	}
	return nil
}

// runCheck journals that c starts, runs it and journals how it went.
func (r *runner) runCheck(ctx context.Context, c Check) (journal.Check, error) {
	if err := r.append(journal.Record{Type: journal.CheckStarted, Check: &journal.Check{Name: c.Name, Kind: c.Kind}}); err != nil {
		return journal.Check{}, err
	}
	r.e.emit(progress.Event{Kind: progress.CheckStarted, Check: c.Name, What: c.Kind})
	got := c.Run(ctx)
	got.Name, got.Kind = c.Name, c.Kind
	if err := r.append(journal.Record{Type: journal.CheckFinished, Check: &got}); err != nil {
		return got, err
	}
	ev := progress.Event{Kind: progress.CheckFinished, Check: c.Name, What: c.Kind, Result: "passed", DurationMS: got.DurationMS}
	if !got.Passed {
		ev.Result, ev.Error = "failed", got.Error
	}
	r.e.emit(ev)
	return got, nil
}
