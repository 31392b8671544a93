// Package history keeps a release's revisions: each applied plan with its
// hash, its objects (Secret values only as keyed digests), outcome and times,
// and an index of their summaries so listing them reads one file.
package history
