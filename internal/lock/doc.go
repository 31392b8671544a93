// Package lock keeps one writer per release: a file lock on this machine that
// dies with its process, and a cluster Lease that names its holder across machines.
package lock
