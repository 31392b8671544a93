package refusal_test

import (
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/pynenc/piceli/refusal"
)

// stale stands for a typed refusal of another package.
type stale struct{}

func (stale) Error() string        { return "plan is stale" }
func (stale) Is(target error) bool { return target == refusal.ErrRefused }

func TestIs(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"nil is no refusal", nil, false},
		{"a plain error is no refusal", errors.New("connection reset"), false},
		{"an Error is a refusal", refusal.Errorf("spec %s: line 3: unknown key", "release.toml"), true},
		{"a wrapped Error is a refusal", fmt.Errorf("open release: %w", refusal.New(os.ErrNotExist)), true},
		{"a typed refusal of another package is a refusal", fmt.Errorf("apply: %w", stale{}), true},
		{"one refusal joined with other errors is a refusal", errors.Join(errors.New("a"), refusal.Errorf("b")), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := refusal.Is(tt.err); got != tt.want {
				t.Errorf("Is(%v) = %t, want %t", tt.err, got, tt.want)
			}
		})
	}
}

func TestNewKeepsTheCauseAndWrapsOnce(t *testing.T) {
	if refusal.New(nil) != nil {
		t.Fatal("New(nil) != nil")
	}
	cause := fmt.Errorf("read build.toml: %w", os.ErrNotExist)
	err := refusal.New(cause)
	if !errors.Is(err, os.ErrNotExist) || err.Error() != cause.Error() {
		t.Errorf("New(%v) = %v, want it to wrap the cause with its message", cause, err)
	}
	if again := refusal.New(err); again != err {
		t.Errorf("New(refusal) = %#v, want the same refusal back", again)
	}
}
