// Package gctune sets the garbage collector of a short-lived command.
//
// A piceli command runs for a second or a few and exits: most of the
// memory it allocates (decoded manifests, plans, LIST responses) stays
// live until it is done, and Go's default pacing (GOGC=100) collects
// several times on the way for little gain. A command instead collects
// when its heap has grown fivefold, under a soft limit that keeps the
// largest releases within the memory budget docs/performance.md holds
// them to (the 5,000-object plans and applies under 300 MB).
package gctune

import (
	"os"
	"runtime/debug"
)

const (
	// Percent is the GOGC a command runs with.
	Percent = 400
	// Limit is the soft memory limit, in bytes, a command runs with: past
	// it the collector runs as often as it must to stay under it. It bounds
	// the runtime's own memory, not the resident set, which also holds the
	// binary and pages not yet returned: at 224 MiB a 5,000-object plan or
	// apply peaked at 283 to 303 MB, at 160 MiB at 232 to 238 MB, no slower.
	Limit = 160 << 20
)

// ForCommand applies Percent and Limit to this process, each unless the
// user set its environment variable (GOGC, GOMEMLIMIT), which wins. It
// returns the GOGC and memory limit in effect.
func ForCommand() (percent int, limit int64) {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(Percent)
	}
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		debug.SetMemoryLimit(Limit)
	}
	percent = debug.SetGCPercent(-1)
	debug.SetGCPercent(percent)
	return percent, debug.SetMemoryLimit(-1)
}
