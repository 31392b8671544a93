package lock

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"
)

func TestHolderString(t *testing.T) {
	tests := []struct {
		name string
		h    Holder
		want string
	}{
		{"a holder with a run names it", Holder{User: "alice", Host: "build-3", PID: 4242, Run: "20261130-061500-ab12"},
			"alice@build-3 pid 4242 (run 20261130-061500-ab12)"},
		{"a holder without a run leaves it out", Holder{User: "bob", Host: "laptop", PID: 7}, "bob@laptop pid 7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.h.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestHeldError(t *testing.T) {
	since := time.Date(2026, 11, 30, 6, 15, 0, 0, time.Local)
	tests := []struct {
		name string
		err  *HeldError
		want string
	}{
		{"names the holder, since when and what is locked",
			&HeldError{Holder: Holder{User: "alice", Host: "host", PID: 42, Run: "X", Since: since}, Where: "file /path/lock"},
			"release is locked by alice@host pid 42 (run X) since 06:15:00 (file /path/lock)"},
		{"an unreadable holder is called unknown",
			&HeldError{Where: "lease shop/piceli-release-shop"},
			"release is locked by an unknown holder (lease shop/piceli-release-shop)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("Error() = %q, want %q", got, tt.want)
			}
			if !errors.Is(fmt.Errorf("apply: %w", tt.err), ErrHeld) {
				t.Errorf("errors.Is(wrapped HeldError, ErrHeld) = false, want true")
			}
		})
	}
}

func TestCurrentHolder(t *testing.T) {
	h := CurrentHolder("r1")
	host, _ := os.Hostname()
	if h.PID != os.Getpid() || h.Host != host || h.Run != "r1" || h.User == "" || h.Since.IsZero() {
		t.Errorf("CurrentHolder(%q) = %+v, want this process (pid %d, host %s), a user and a time", "r1", h, os.Getpid(), host)
	}
}

func TestAlive(t *testing.T) {
	tests := []struct {
		name string
		pid  int
		want bool
	}{
		{"this process is alive", os.Getpid(), true},
		{"a process that exited and was reaped is not", deadPID(t), false},
		{"pid 0 is no process", 0, false},
		{"a negative pid is no process", -1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := alive(tt.pid); got != tt.want {
				t.Errorf("alive(%d) = %v, want %v", tt.pid, got, tt.want)
			}
		})
	}
}

// deadPID runs `sleep 0`, waits for it and returns its pid, now free.
func deadPID(t testing.TB) int {
	t.Helper()
	cmd := exec.Command("sleep", "0")
	if err := cmd.Run(); err != nil {
		t.Fatalf("run sleep 0: %v", err)
	}
	return cmd.Process.Pid
}
