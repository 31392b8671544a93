package check

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pynenc/piceli/internal/spec"
)

// script writes an executable shell script into dir.
func script(t *testing.T, dir, name, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
}

func commandCheck(dir string, timeout time.Duration, retries int, run ...string) spec.Check {
	return spec.Check{Name: "cmd", Timeout: timeout, Retries: retries, Backoff: 10 * time.Millisecond,
		Command: &spec.CommandCheck{Run: run, Dir: dir, Services: []string{}}}
}

func TestCommandChecks(t *testing.T) {
	dir := t.TempDir()
	script(t, dir, "ok.sh", "echo all good; echo on stderr >&2\n")
	script(t, dir, "fail.sh", "echo broken; exit 3\n")
	script(t, dir, "big.sh", "yes 0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890123456 | head -c 10000000\necho last line\n")
	script(t, dir, "slow.sh", "echo started; sleep 30\n")
	script(t, dir, "env.sh", "echo \"token=${TOKEN:-unset} canary=$CANARY\"\n")
	r := &Runner{Env: []string{"PATH=" + os.Getenv("PATH"), "CANARY=hunter2-canary"}, Redact: NewRedactor([][]byte{[]byte("hunter2-canary")})}
	tests := []struct {
		name         string
		check        spec.Check
		pass         bool
		attempts     int
		inExcerpt    string
		inError      string
		maxDuration  time.Duration
		notInExcerpt string
	}{
		{name: "exit 0 passes with its output", check: commandCheck(dir, 5*time.Second, 0, "./ok.sh"),
			pass: true, attempts: 1, inExcerpt: "all good\non stderr\n"},
		{name: "a non-zero exit fails, retried", check: commandCheck(dir, 5*time.Second, 2, "./fail.sh"),
			attempts: 3, inExcerpt: "broken", inError: "./fail.sh exited with exit status 3"},
		{name: "10 MB of output keeps a bounded tail", check: commandCheck(dir, 20*time.Second, 0, "./big.sh"),
			pass: true, attempts: 1, inExcerpt: "bytes before this omitted]"},
		{name: "a command past its timeout is killed", check: commandCheck(dir, 500*time.Millisecond, 0, "./slow.sh"),
			attempts: 1, inExcerpt: "started", inError: "timed out after 500ms: ./slow.sh was killed", maxDuration: 5 * time.Second},
		{name: "a missing program fails", check: commandCheck(dir, time.Second, 0, "./missing.sh"),
			attempts: 1, inError: "run ./missing.sh: "},
		{name: "a secret in the output is taken out", check: commandCheck(dir, 5*time.Second, 0, "./env.sh"),
			pass: true, attempts: 1, inExcerpt: "token=unset canary=" + Redacted, notInExcerpt: "hunter2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			got := r.Run(context.Background(), tt.check)
			if got.Passed != tt.pass || got.Attempts != tt.attempts || got.Kind != "command" || got.Name != "cmd" {
				t.Errorf("Run() = %+v, want passed %v after %d attempts", got, tt.pass, tt.attempts)
			}
			if !strings.Contains(got.Excerpt, tt.inExcerpt) || len(got.Excerpt) > MaxExcerpt+64 {
				t.Errorf("Run() excerpt (%d bytes) = %q, want it to contain %q and stay within %d bytes", len(got.Excerpt), got.Excerpt, tt.inExcerpt, MaxExcerpt)
			}
			if tt.notInExcerpt != "" && strings.Contains(got.Excerpt+got.Error, tt.notInExcerpt) {
				t.Errorf("Run() shows %q: %+v", tt.notInExcerpt, got)
			}
			if !strings.Contains(got.Error, tt.inError) || (tt.pass && got.Error != "") {
				t.Errorf("Run() error = %q, want it to contain %q", got.Error, tt.inError)
			}
			if tt.maxDuration > 0 && time.Since(start) > tt.maxDuration {
				t.Errorf("Run() took %s, want at most %s", time.Since(start), tt.maxDuration)
			}
		})
	}
}

func TestEnvName(t *testing.T) {
	for in, want := range map[[2]string]string{
		{"web", "80"}:        "PICELI_WEB_80_ADDR",
		{"web-api", "http"}:  "PICELI_WEB_API_HTTP_ADDR",
		{"db", "pg.primary"}: "PICELI_DB_PG_PRIMARY_ADDR",
	} {
		if got := EnvName(in[0], in[1]); got != want {
			t.Errorf("EnvName(%q, %q) = %q, want %q", in[0], in[1], got, want)
		}
	}
}
