package compose

import "strings"

// BuildError is a failure of the Go toolchain on the user's code: Output
// is what the compiler (or go list) printed, verbatim.
type BuildError struct {
	Output string
	Err    error // the go command's exit error, if any
}

// Error returns the toolchain's output under one line of context.
func (e *BuildError) Error() string {
	return "go build failed:\n" + strings.TrimRight(e.Output, "\n")
}

// Unwrap returns the go command's exit error.
func (e *BuildError) Unwrap() error { return e.Err }
