package release

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// A run its lock ended reports why, not a bare "context canceled"; other
// errors and interrupts are left as they are.
func TestWithCauseSaysWhyTheRunEnded(t *testing.T) {
	gone := errors.New("namespace shop was deleted during the run")
	tests := []struct {
		name  string
		cause error // nil: the context is not cancelled
		err   error
		want  string
	}{
		{name: "a lost Lease names its cause", cause: gone, err: fmt.Errorf("apply ConfigMap/shop/a: %w", context.Canceled),
			want: "namespace shop was deleted during the run (apply ConfigMap/shop/a: context canceled)"},
		{name: "an interrupt stays as it is", cause: context.Canceled, err: context.Canceled, want: "context canceled"},
		{name: "another error stays as it is", cause: gone, err: errors.New("apply failed"), want: "apply failed"},
		{name: "a live context changes nothing", err: context.Canceled, want: "context canceled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancelCause(t.Context())
			defer cancel(nil)
			if tt.cause != nil {
				cancel(tt.cause)
			}
			got := withCause(ctx, tt.err)
			if got.Error() != tt.want {
				t.Errorf("withCause() = %q, want %q", got, tt.want)
			}
			if tt.cause == gone && errors.Is(tt.err, context.Canceled) && !errors.Is(got, gone) {
				t.Errorf("withCause() = %v, does not wrap the cause", got)
			}
		})
	}
}
