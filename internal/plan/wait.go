package plan

import (
	"errors"
	"fmt"
	"strconv"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/spec"
	pub "github.com/pynenc/piceli/plan"
)

// ErrBadAnnotation marks a plan error caused by a declared object whose
// piceli.dev annotation has a value Piceli does not accept: bad input,
// refused before anything is read from the cluster.
var ErrBadAnnotation = errors.New("bad annotation")

// NoWaitReason lives in the public package plan.
type NoWaitReason = pub.NoWaitReason

// The reasons not to wait for an object.
const (
	NoWaitAnnotated = pub.NoWaitAnnotated
	NoWaitRelease   = pub.NoWaitRelease
)

// noWait returns why apply must not wait for u, or "" when it waits: the
// object's piceli.dev/wait annotation when it has one, else the release's
// policy (spec.WaitReady or spec.WaitNone; empty means ready). A
// CustomResourceDefinition is always waited for until Established: later
// waves write objects of its kind. u's annotation must have passed
// checkWait.
func noWait(u *unstructured.Unstructured, policy string) NoWaitReason {
	if isCRD(u) {
		return ""
	}
	if v, ok := u.GetAnnotations()[object.WaitAnnotation]; ok {
		if v == "false" {
			return NoWaitAnnotated
		}
		return ""
	}
	if policy == spec.WaitNone {
		return NoWaitRelease
	}
	return ""
}

// checkWait refuses a piceli.dev/wait annotation other than "true" or
// "false", and "false" on a CustomResourceDefinition.
func checkWait(u *unstructured.Unstructured) error {
	v, ok := u.GetAnnotations()[object.WaitAnnotation]
	switch {
	case !ok || v == "true":
		return nil
	case v != "false":
		return fmt.Errorf("%w: %s is %s; want \"true\" or \"false\"", ErrBadAnnotation, object.WaitAnnotation, strconv.Quote(v))
	case isCRD(u):
		return fmt.Errorf("%w: %s: \"false\" on a CustomResourceDefinition: it is always waited for until Established, as later waves write objects of its kind; remove the annotation", ErrBadAnnotation, object.WaitAnnotation)
	}
	return nil
}

// checkWaits checks the piceli.dev/wait annotation of every declared
// object, naming each one refused.
func (m *maker) checkWaits() error {
	var errs []error
	for _, o := range m.in.Objects {
		if err := checkWait(o.Object); err != nil {
			errs = append(errs, fmt.Errorf("plan %s (declared by %s): %w", object.RefOf(o.Object), o.Origin, err))
		}
	}
	return errors.Join(errs...)
}

func isCRD(u *unstructured.Unstructured) bool {
	gvk := u.GroupVersionKind()
	return gvk.Group == "apiextensions.k8s.io" && gvk.Kind == "CustomResourceDefinition"
}
