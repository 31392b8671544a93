//go:build !piceli_failpoints

package apply

import (
	"context"

	"github.com/pynenc/piceli/internal/journal"
)

// FailpointsBuilt reports whether this binary was built with -tags
// piceli_failpoints, the only build in which FailpointEnv arms a failpoint.
const FailpointsBuilt = false

// failpoint is empty in a build without the piceli_failpoints tag: it
// holds no state and its hit does nothing, so no path can kill the process.
type failpoint struct{}

// armedFailpoint is always nil here: FailpointEnv is not read.
func armedFailpoint() *failpoint { return nil }

// hit does nothing in this build.
func (*failpoint) hit(context.Context, string) {}

// journalOptions gives a run's journal no hooks in this build:
// JournalFaultEnv is not read.
func journalOptions(string) journal.Options { return journal.Options{} }
