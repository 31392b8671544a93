package readiness

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Sentinels a NotReadyError wraps, for callers that branch on why a wait
// ended.
var (
	// ErrFailed means an object reached the Failed status.
	ErrFailed = errors.New("an object failed")
	// ErrTimeout means WaitOptions.Timeout passed first.
	ErrTimeout = errors.New("timed out")
)

// errTimeout is the cause of Wait's own deadline.
var errTimeout = errors.New("wait timeout")

// NotReadyError is Wait's error: why it stopped and every object that was
// not current then.
type NotReadyError struct {
	// Cause is ErrFailed, ErrTimeout, or the cause of the caller's context.
	Cause   error
	Timeout time.Duration // the timeout in force
	Objects []Object      // the objects not current, in target order
}

// Error names each object that is not ready with its status, message and
// diagnosis, one per line.
func (e *NotReadyError) Error() string {
	var b strings.Builder
	b.WriteString("wait for readiness: " + e.reason() + ":")
	for _, o := range e.Objects {
		fmt.Fprintf(&b, "\n  %s %s: %s", o.Ref, o.Result.Status, o.Result.Message)
		for _, line := range o.Diagnosis {
			b.WriteString("\n    " + line)
		}
	}
	return b.String()
}

func (e *NotReadyError) reason() string {
	if errors.Is(e.Cause, ErrTimeout) {
		return fmt.Sprintf("timed out after %s", e.Timeout)
	}
	return e.Cause.Error()
}

// Unwrap returns Cause.
func (e *NotReadyError) Unwrap() error { return e.Cause }

// fail diagnoses the objects that are not current and returns the report
// with a *NotReadyError. Pods are read only when the caller's ctx is live.
func (w *waiter) fail(ctx context.Context, cause error) (Report, error) {
	if cause == errTimeout {
		cause = ErrTimeout
	}
	pending := w.pending()
	if ctx.Err() == nil {
		w.diagnose(ctx, pending)
	}
	err := &NotReadyError{Cause: cause, Timeout: w.opts.Timeout}
	for _, i := range pending {
		err.Objects = append(err.Objects, w.objects[i])
	}
	return w.report(), err
}
