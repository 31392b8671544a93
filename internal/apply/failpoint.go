package apply

// FailpointEnv names the environment variable that arms one failpoint, as
// NAME, NAME:N (the N-th time it is reached) or NAME:N:DURATION (pause there
// instead of dying, so a test can act while the run is in a known place).
// It exists for the fault suite, which kills the engine at every boundary
// and resumes. Only a binary built with -tags piceli_failpoints reads it
// (see FailpointsBuilt); any other build ignores it, so a release binary
// cannot be made to kill itself.
const FailpointEnv = "PICELI_TEST_FAILPOINT"

// FailpointPausedMarker starts the line a failpoint armed to pause prints
// on stderr, followed by its name, when the run reaches it: a test waits
// for it to know the run is there.
const FailpointPausedMarker = "piceli-test-failpoint: paused at"

// The named boundaries of a run, in the order a step meets them.
const (
	FailAfterRunStarted  = "after-run-started" // the run is journaled, nothing written
	FailAfterIntent      = "after-intent"      // a wave's intents are durable, no write sent
	FailAfterWrite       = "after-write"       // a write succeeded, its outcome not journaled
	FailAfterOutcome     = "after-outcome"     // a write's outcome is in the journal (durable with its wave's)
	FailBeforeWaveReady  = "before-wave-ready" // a wave is written, readiness not journaled
	FailAfterWaveReady   = "after-wave-ready"  // a wave is ready and journaled
	FailBeforeRunFinish  = "before-run-finish" // every wave is done, no revision recorded
	FailAfterRevision    = "after-revision"    // the revision is recorded, the run not closed
	FailAfterCompIntent  = "after-compensate-intent"
	FailAfterCompOutcome = "after-compensate-outcome"
)

// Failpoints lists every named failpoint of a run that applies, for the
// table-driven fault tests.
var Failpoints = []string{
	FailAfterRunStarted, FailAfterIntent, FailAfterWrite, FailAfterOutcome,
	FailBeforeWaveReady, FailAfterWaveReady, FailBeforeRunFinish, FailAfterRevision,
}

// CompensationFailpoints lists every named failpoint of a run that undoes
// its steps, in the order an undo meets them.
var CompensationFailpoints = []string{FailAfterCompIntent, FailAfterCompOutcome}

// JournalFaultEnv names the environment variable that makes a run's
// journal fail to sync, as "fsync:N": the N-th fsync of a journal in the
// process fails (with EIO) instead of being made. The Writer then refuses
// every later append, so the run ends there. A later fsync attempt on the
// same file in the same process, which must never happen, is reported on
// stderr with JournalRetryMarker. Like FailpointEnv, only a binary built
// with -tags piceli_failpoints reads it.
const JournalFaultEnv = "PICELI_TEST_JOURNAL_FAULT"

// JournalRetryMarker starts the line a piceli_failpoints build prints when
// a journal whose fsync failed is synced again.
const JournalRetryMarker = "piceli-failpoint: journal synced again after its fsync failed:"
