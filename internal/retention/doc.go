// Package retention bounds a release's state directory: it removes the plans,
// runs and secret versions that nothing needs any more, and never a revision.
package retention
