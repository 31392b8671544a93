package kube

import (
	"errors"
	"fmt"

	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/refusal"
)

// ErrTarget marks an unusable target: no kubeconfig or context named, a file
// that cannot be read, a context the file lacks, a credential plugin that is
// not allowed, or a cluster whose identity cannot be read. Callers refuse
// before any change (the CLI exits 2). Every *TargetError matches it.
var ErrTarget = errors.New("unusable target")

// ErrExecNotAllowed marks a refusal to use a kubeconfig user that runs an exec
// credential plugin or an auth provider while Options.AllowExec is false.
var ErrExecNotAllowed = errors.New("credential plugins run only when explicitly allowed")

// ErrUnresolved marks a declared object whose kind, version or scope neither
// the cluster's discovery nor a CRD in the same input accepts. Every
// *ResolveError matches it.
var ErrUnresolved = errors.New("unresolved object")

// TargetError says what was being done to which target. It matches ErrTarget
// with errors.Is and unwraps to the cause.
type TargetError struct {
	Op         string // what was being done: "connect to", "identify the cluster of"
	Kubeconfig string // the kubeconfig file, as named
	Context    string // the context, as named
	Err        error
}

// Error reads as one sentence: `connect to context "c" in /path: cause`.
func (e *TargetError) Error() string {
	where := fmt.Sprintf("context %q in %s", e.Context, e.Kubeconfig)
	switch {
	case e.Kubeconfig == "" && e.Context == "":
		where = "a target"
	case e.Kubeconfig == "":
		where = fmt.Sprintf("context %q", e.Context)
	case e.Context == "":
		where = "a context in " + e.Kubeconfig
	}
	return fmt.Sprintf("%s %s: %v", e.Op, where, e.Err)
}

// Unwrap returns the cause.
func (e *TargetError) Unwrap() error { return e.Err }

// Is reports whether target is ErrTarget or refusal.ErrRefused: an
// unusable target is bad input, refused before any change.
func (e *TargetError) Is(target error) bool {
	return target == ErrTarget || target == refusal.ErrRefused
}

// ResolveError says why one declared object could not be resolved, naming
// the object and where it was declared. It matches ErrUnresolved with
// errors.Is and unwraps to the reason.
type ResolveError struct {
	Ref    object.Ref
	Origin string // where the object was declared, e.g. "manifests/w.yaml:3"; may be empty
	Err    error
}

// Error reads `resolve Kind/ns/name (declared by origin): reason`.
func (e *ResolveError) Error() string {
	if e.Origin == "" {
		return fmt.Sprintf("resolve %s: %v", e.Ref, e.Err)
	}
	return fmt.Sprintf("resolve %s (declared by %s): %v", e.Ref, e.Origin, e.Err)
}

// Unwrap returns the reason.
func (e *ResolveError) Unwrap() error { return e.Err }

// Is reports whether target is ErrUnresolved.
func (e *ResolveError) Is(target error) bool { return target == ErrUnresolved }
