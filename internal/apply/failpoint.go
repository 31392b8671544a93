package apply

// FailpointEnv names the environment variable that arms one failpoint, as
// NAME, NAME:N (the N-th time it is reached) or NAME:N:DURATION (pause there
// instead of dying, so a test can act while the run is in a known place).
// It exists for the fault suite, which kills the engine at every boundary
// and resumes. Only a binary built with -tags piceli_failpoints reads it
// (see FailpointsBuilt); any other build ignores it, so a release binary
// cannot be made to kill itself.
const FailpointEnv = "PICELI_TEST_FAILPOINT"

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

// Failpoints lists every named failpoint, for the table-driven fault tests.
var Failpoints = []string{
	FailAfterRunStarted, FailAfterIntent, FailAfterWrite, FailAfterOutcome,
	FailBeforeWaveReady, FailAfterWaveReady, FailBeforeRunFinish, FailAfterRevision,
}
