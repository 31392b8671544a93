package apply

import (
	"errors"
	"net/url"
	"slices"
	"strings"
	"syscall"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	clienttesting "k8s.io/client-go/testing"

	"github.com/pynenc/piceli/internal/journal"
)

// TestCompensateCoversAWriteWhoseAnswerWasLost fails the second wave of
// creates(a, b) with Options.Compensate, the write of b having reached
// the cluster although its answer says it failed: the API server timed out
// while still processing it, or the connection reset after the request was
// forwarded. Compensation must not leave b behind unreported: it undoes b
// (after settling it by reading the cluster) or names it in its notes.
//
// Such a write journals no outcome: it stays in doubt until compensation
// settles it by reading the cluster, as a resume would.
func TestCompensateCoversAWriteWhoseAnswerWasLost(t *testing.T) {
	tests := []struct {
		name   string
		answer error
	}{
		{
			name:   "a 504 Timeout: the server may still be processing the write",
			answer: apierrors.NewTimeoutError("request did not complete within requested timeout - context deadline exceeded", 0),
		},
		{
			name:   "a connection reset after the request was forwarded",
			answer: &url.Error{Op: "Patch", URL: "https://127.0.0.1:6443/api/v1/namespaces/shop/configmaps/b", Err: syscall.ECONNRESET},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newFakeCluster()
			c.answerTimes("patch", "b", -1, func(a clienttesting.Action) error {
				if _, _, err := c.patch(a); err != nil {
					t.Errorf("the fake cluster refused the write of b: %v", err)
				}
				return tt.answer
			})
			e := newEngine(t, c, Options{Compensate: true})

			_, err := e.Apply(t.Context(), "run-1", creates(t, "a", "b"))
			var ce *CompensatedError
			if !errors.As(err, &ce) {
				t.Fatalf("Apply() = %v, want a *CompensatedError", err)
			}
			recs, _ := replayRun(t, e.StateDir, "run-1")
			noted := slices.ContainsFunc(ce.Notes, func(n string) bool { return strings.Contains(n, "ConfigMap/shop/b") })
			if b := c.configMap("b"); b != nil && !noted {
				t.Errorf("the run ended compensated with b (uid %s) still in the cluster and no note about it; journal:\n  %s\nnotes: %q",
					b.GetUID(), strings.Join(story(recs), "\n  "), ce.Notes)
			}
			if c.configMap("a") != nil {
				t.Errorf("a is still in the cluster after compensation")
			}
			for _, rec := range recs {
				if rec.Type == journal.Outcome && rec.Step == 1 && rec.Result == journal.ResultApplied {
					t.Errorf("outcome of b = applied, though the write's answer was an error")
				}
			}
		})
	}
}
