// Package state keeps a release's state directory (plans, runs and their
// journals, revisions, the digest key and secret versions) either on this
// machine alone or shared through the target cluster as compressed, chunked
// snapshots in labelled Secrets, written only under the release's Lease.
package state
