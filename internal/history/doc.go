// Package history keeps a release's revisions: each applied plan with its
// hash, its objects (Secret values only as keyed digests), outcome and times.
package history
