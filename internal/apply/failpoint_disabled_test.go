//go:build !piceli_failpoints

package apply

import "testing"

// Without the piceli_failpoints tag, FailpointEnv arms nothing.
func TestFailpointEnvIgnoredWithoutTag(t *testing.T) {
	t.Setenv(FailpointEnv, FailAfterRunStarted)
	if FailpointsBuilt {
		t.Errorf("FailpointsBuilt = true in a build without -tags piceli_failpoints")
	}
	if f := armedFailpoint(); f != nil {
		t.Errorf("armedFailpoint() with %s=%s = %+v, want nil in a build without the tag", FailpointEnv, FailAfterRunStarted, f)
	}
}

// Without the piceli_failpoints tag, JournalFaultEnv hooks no journal.
func TestJournalFaultEnvIgnoredWithoutTag(t *testing.T) {
	t.Setenv(JournalFaultEnv, "fsync:1")
	if o := journalOptions("journal"); o.BeforeSync != nil || o.AfterSync != nil {
		t.Errorf("journalOptions() with %s=fsync:1 has hooks in a build without the tag", JournalFaultEnv)
	}
}
