// Package deploy takes a release from source to a running, checked
// release in one resumable run: it checks the build's inputs against their
// lock, builds the images, delivers them, plans, waits for approval (or
// takes an approved hash), applies and runs the checks, journaling each
// stage with the digest of its inputs and its outcome.
//
// A stage whose inputs did not change is skipped and says why: the build
// when the layout was built from the same lock, the delivery when the same
// images already went to the same target. An interrupted deploy resumes
// where it stopped (Options.Resume); its apply stage resumes through the
// engine's own journal, so no step is written twice. Builds and imports
// go through package artifact, plans and runs through package release,
// with their rules: nothing runs without a grant, nothing is applied
// without an approved plan.
//
// The journal (state_dir/deploys/ID/journal) is written ahead of each
// stage and fsynced; a torn last record is repaired, a corrupt one is an
// error. It holds digests, references, counts and durations, never an
// object's content or a secret value. With an OTLP/HTTP endpoint, a deploy
// sends one trace (a span per stage and per applied step) and one log
// record of its result, within a bounded time (see package telemetry):
// telemetry never fails a deploy.
package deploy
