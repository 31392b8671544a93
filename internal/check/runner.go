package check

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/kube"
	"github.com/pynenc/piceli/internal/spec"
)

// MaxBackoff caps the pause between two attempts, however often it
// doubled.
const MaxBackoff = 30 * time.Second

// Runner runs checks of one release against its cluster. Its zero value
// is not usable: Client and Namespace are required.
type Runner struct {
	Client    *kube.Client
	Namespace string // the release's target namespace: where Services are and Jobs run
	Release   string // the release's name, on the Jobs it creates
	// Jobs are the composition's Jobs by name, which a job check may copy.
	Jobs map[string]*unstructured.Unstructured
	// Services are the release's Services, which a command check without
	// a services list forwards.
	Services []string
	// Redact takes the release's secret values out of every excerpt and
	// error.
	Redact Redactor
	// Env is the environment of command checks, before the forwarded
	// addresses are added; nil means this process's environment.
	Env []string
	// Interval is how often job checks and forwards poll; zero means a
	// second.
	Interval time.Duration
}

// attempt is one try of a check: an excerpt of what it saw and why it
// failed (nil: passed).
type attempt func(ctx context.Context) (string, error)

// Run runs c, retrying a failed attempt c.Retries times with a pause that
// starts at c.Backoff and doubles (at most MaxBackoff), each attempt
// bounded by c.Timeout, and reports the last attempt. It never returns a
// secret value: excerpts and errors go through r.Redact and are bounded.
// Run returns early, failed, when ctx ends.
func (r *Runner) Run(ctx context.Context, c spec.Check) journal.Check {
	start := time.Now()
	res := journal.Check{Name: c.Name, Kind: c.Kind()}
	try := r.attemptOf(c)
	pause := c.Backoff
	var excerpt string
	var err error
	for n := 0; n <= c.Retries; n++ {
		if n > 0 && !sleep(ctx, pause) {
			break
		}
		pause = min(2*pause, MaxBackoff)
		res.Attempts++
		actx, cancel := context.WithTimeout(ctx, attemptLimit(c))
		excerpt, err = try(actx)
		if err != nil && actx.Err() != nil && ctx.Err() == nil {
			err = fmt.Errorf("timed out after %s: %w", c.Timeout, err)
		}
		cancel()
		if err == nil || ctx.Err() != nil {
			break
		}
	}
	res.DurationMS = time.Since(start).Milliseconds()
	res.Passed = err == nil
	res.Excerpt = r.bounded(excerpt)
	if err != nil {
		res.Error = r.bounded(err.Error())
	}
	return res
}

// attemptLimit bounds one attempt: the check's timeout, plus for a job
// check the time its Job's controller needs to mark it failed once its
// activeDeadlineSeconds (the timeout) passed.
func attemptLimit(c spec.Check) time.Duration {
	if c.Job != nil {
		return c.Timeout + jobGrace
	}
	return c.Timeout
}

// attemptOf returns the attempt of c's kind.
func (r *Runner) attemptOf(c spec.Check) attempt {
	switch {
	case c.HTTP != nil:
		return func(ctx context.Context) (string, error) { return r.http(ctx, c.HTTP) }
	case c.TCP != nil:
		return func(ctx context.Context) (string, error) { return r.tcp(ctx, c.TCP) }
	case c.Command != nil:
		return func(ctx context.Context) (string, error) { return r.command(ctx, c.Command) }
	case c.Job != nil:
		return func(ctx context.Context) (string, error) { return r.job(ctx, c.Name, c.Job, c.Timeout) }
	}
	return func(context.Context) (string, error) { return "", errors.New("the check has no kind") }
}

// bounded redacts s and keeps at most MaxExcerpt bytes of its end.
func (r *Runner) bounded(s string) string {
	s = r.Redact.Redact(s)
	if len(s) <= MaxExcerpt {
		return s
	}
	t := newTail(MaxExcerpt)
	t.Write([]byte(s))
	return t.String()
}

func (r *Runner) interval() time.Duration {
	if r.Interval <= 0 {
		return time.Second
	}
	return r.Interval
}

// sleep waits d, or reports false when ctx ends first.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// oneLine squeezes text onto one line for an error.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
