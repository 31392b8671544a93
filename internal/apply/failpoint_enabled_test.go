//go:build piceli_failpoints

package apply

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/pynenc/piceli/internal/journal"
)

// With the piceli_failpoints tag, FailpointEnv arms the failpoint it names.
func TestFailpointEnvArmsWithTag(t *testing.T) {
	if !FailpointsBuilt {
		t.Errorf("FailpointsBuilt = false in a build with -tags piceli_failpoints")
	}
	tests := map[string]struct {
		env   string
		name  string
		at    int
		pause time.Duration
	}{
		"a name alone arms its first hit":      {env: FailAfterWrite, name: FailAfterWrite, at: 1},
		"a count arms that hit":                {env: FailAfterWrite + ":3", name: FailAfterWrite, at: 3},
		"a duration pauses instead of killing": {env: FailAfterIntent + ":2:1s", name: FailAfterIntent, at: 2, pause: time.Second},
	}
	for sentence, tt := range tests {
		t.Run(sentence, func(t *testing.T) {
			t.Setenv(FailpointEnv, tt.env)
			f := armedFailpoint()
			if f == nil || f.name != tt.name || f.at != tt.at || f.pause != tt.pause {
				t.Errorf("armedFailpoint() with %s=%s = %+v, want name %s, at %d, pause %s", FailpointEnv, tt.env, f, tt.name, tt.at, tt.pause)
			}
		})
	}
}

// With JournalFaultEnv=fsync:N the N-th journal fsync fails with EIO, and
// the Writer appends nothing after it.
func TestJournalFaultFailsTheNthSync(t *testing.T) {
	t.Setenv(JournalFaultEnv, "fsync:2")
	journalSyncs.n, journalSyncs.failed = 0, nil
	path := filepath.Join(t.TempDir(), "journal")
	w, err := journal.Create(path, journalOptions(path))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	rec := journal.Record{Type: journal.RunStarted, Run: "r", Plan: "p"}
	if err := w.Append(rec); err != nil {
		t.Fatalf("first Append() = %v, want nil", err)
	}
	if err := w.Append(rec); !errors.Is(err, syscall.EIO) {
		t.Fatalf("second Append() = %v, want the injected EIO", err)
	}
	if err := w.Append(rec); err == nil {
		t.Errorf("Append() after the failed fsync = nil, want a refusal")
	}
	if !journalSyncs.failed[path] || journalSyncs.n != 2 {
		t.Errorf("%d fsyncs tried, %s marked failed %t; want 2 (none after the failure) and true", journalSyncs.n, path, journalSyncs.failed[path])
	}
}
