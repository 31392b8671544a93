// Package release is the one way to drive a Piceli release from Go: open a
// spec, then plan, diff, apply an approved plan, resume, stop, roll back,
// and read history and status, with the same rules the piceli command
// follows (it is built on this package).
//
// Nothing reaches a cluster without the explicit kubeconfig file and context
// the spec names. Writes happen only in Apply, Resume and Rollback, only for
// a plan approved by its hash, under the release's locks: the file lock in
// the state directory, then the approval check against a fresh plan, then
// the Lease in the cluster. Secret values are resolved here from their
// declared sources into the private store and never reach a plan, journal,
// event or error.
//
// Errors a caller branches on: refusal.Is(err) for anything refused before
// any change (bad input, a stale plan as *StaleError, a held lock as
// *LockHeldError), *ApprovalRequiredError and *RunFailedError. Progress of a
// run arrives as Events.
package release
