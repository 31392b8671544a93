package state

import (
	"context"
	"errors"
)

// Store is where a release's state is shared. The state directory is
// always the working copy the rest of Piceli reads and writes; a Store
// brings it up to date before work (Pull) and shares what the work wrote
// (Push). Local keeps the directory as the only copy.
type Store interface {
	// Pull brings the state directory up to date with the shared state.
	// It never loses a file written here and not yet pushed.
	Pull(ctx context.Context) (*Pulled, error)
	// Push shares the state directory as it is now, refusing with an
	// error matching ErrFenced when fence no longer holds the release's
	// Lease. A push that would change nothing writes nothing.
	Push(ctx context.Context, fence Fence) (*Pushed, error)
}

// Fence is what a writer proves before every state write: it holds the
// release's Lease, identified by the Lease's namespace and name, with
// this holder identity and this transition count.
type Fence struct {
	Namespace   string
	Lease       string
	Identity    string
	Transitions int32
}

// ErrFenced is matched by the error of a write whose writer no longer
// holds the release's Lease (it was taken over, or deleted).
var ErrFenced = errors.New("the release's lease is no longer held by this writer")

// Pulled says what a Pull found.
type Pulled struct {
	Generation int64 // the snapshot used; zero when there is none yet
	Files      int   // files in it
	Changed    int   // cache files written
	// Refused names what was wrong with a newer snapshot that was not
	// used (a missing or damaged chunk), when the previous one was.
	Refused string
	// Accepted is set when the pull took an older state than this machine
	// had seen, as PullOlder was asked to: the generation taken (0: none)
	// and the newest seen before.
	Accepted *Ack
}

// Pushed says what a Push wrote.
type Pushed struct {
	Generation int64 // the snapshot now current
	Chunks     int   // chunk objects it is made of
	Bytes      int   // its compressed size
	Unchanged  bool  // the shared state already held these files
}

// Local is the Store of a release whose state stays in its state
// directory: nothing to pull, nothing to push.
type Local struct{}

// Pull does nothing.
func (Local) Pull(context.Context) (*Pulled, error) { return &Pulled{}, nil }

// Push does nothing.
func (Local) Push(context.Context, Fence) (*Pushed, error) { return &Pushed{Unchanged: true}, nil }
