// Package release is the one way to drive a Piceli release from Go: open a
// spec, then plan, diff, apply an approved plan, resume, stop, plan and
// apply a rollback, and read history, runs and whether the app is up, with
// the same rules the piceli command follows (it is built on this package).
//
// Nothing reaches a cluster without the explicit kubeconfig file and context
// the spec names. Writes happen only in Apply, Resume and Rollback, only for
// a plan approved by its hash, under the release's locks: the file lock in
// the state directory, then the approval check against a fresh plan, then
// the Lease in the cluster. Planning is not an error: Plan and PlanRollback
// return the plan to approve, and Apply and Rollback refuse an empty hash.
// Secret values are resolved here from their declared sources into the
// private store and never reach a plan, journal, event or error.
//
// The plan is a *plan.Plan (package plan); progress arrives as
// progress.Event values (package progress) through the Events handler of
// each call's options, one event at a time: the package serialises them,
// so a handler needs no lock. The release's state store is reached
// through State, its secret versions through Secrets.
//
// Errors a caller branches on: refusal.Is(err) for anything refused before
// any change (bad input, a stale plan as *StaleError, a held lock as
// *LockHeldError), *RunFailedError and *ChecksFailedError.
//
// Words mean one thing here: a run's lifecycle value is its Phase
// (running, interrupted, finished, failed, stopped, compensated); Status
// says whether the app is up; the state is the release's state store
// (state_dir, and the cluster's copy when it is shared).
package release
