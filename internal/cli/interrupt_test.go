package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

// A command that ignores its context (stuck in a read no signal can
// stop) is abandoned after an interrupt when nothing journaled is in
// flight; one with a run registered is waited for.
func TestPromptlyAbandonsOnlyAnIdleCommand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		register bool
		want     int
	}{
		{name: "an idle command stuck after an interrupt is abandoned", want: ExitInterrupted},
		{name: "a command with a run registered is waited for", register: true, want: ExitFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, stop := SignalContext(context.Background())
			defer stop()
			in := ctx.Value(interruptsKey{}).(*interrupts)
			release := make(chan struct{})
			var stderr bytes.Buffer
			if tt.register {
				softStop(ctx, &stderr)
			}
			cmd := func() int {
				in.signal()
				in.signal() // the second interrupt cancels ctx either way
				<-release
				return ExitFailed
			}
			if !tt.register {
				defer close(release)
			} else {
				go func() { <-ctx.Done(); time.Sleep(2 * interruptGrace); close(release) }() // ends only after the grace
			}
			if got := promptly(ctx, &stderr, cmd); got != tt.want {
				t.Fatalf("promptly = %d, want %d (stderr %q)", got, tt.want, stderr.String())
			}
			if tt.want == ExitInterrupted && !strings.Contains(stderr.String(), "interrupted") {
				t.Errorf("stderr %q does not say the command was interrupted", stderr.String())
			}
		})
	}
}
