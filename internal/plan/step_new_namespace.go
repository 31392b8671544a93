package plan

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/internal/object"
)

// probeNamespace is where an object whose namespace does not exist yet is
// judged. Every cluster has it, and the API server refuses to delete it.
const probeNamespace = "default"

// validateElsewhere judges object i (step s), whose create dry-run found
// no namespace or no resource, before anything is written. An object of a
// resource not served yet (its CRD is in this plan) cannot be judged. One
// whose namespace is absent must be in a namespace the plan creates; a
// copy of it is then dry-run created in probeNamespace, and only a 422
// Invalid answer refuses it. Create, unlike apply, validates the copy
// before looking for a same-named object there, so an object of that
// namespace cannot lend its fields or its immutable ones. Any other answer
// (quota, RBAC or admission policy of probeNamespace) says nothing about
// the object and becomes a warning of the step.
func (m *maker) validateElsewhere(ctx context.Context, i int, s Step) (Step, error) {
	o, r := m.in.Objects[i].Object, m.res[i]
	ns := o.GetNamespace()
	if !r.Namespaced || m.live.get(namespaceRef(ns)) != nil {
		return s, nil
	}
	if !m.declared[namespaceRef(ns)] {
		return s, fmt.Errorf("plan %s (declared by %s): %w: namespace %q does not exist and this plan does not create it; declare the Namespace", s.Ref, s.Origin, ErrRefused, ns)
	}
	c := o.DeepCopy()
	c.SetNamespace(probeNamespace)
	opts := metav1.CreateOptions{FieldManager: m.in.Release.FieldManager, DryRun: []string{metav1.DryRunAll}}
	_, err := m.c.Dynamic.Resource(r.GVR).Namespace(probeNamespace).Create(ctx, c, opts)
	switch {
	case err == nil, apierrors.IsAlreadyExists(err), apierrors.IsNotFound(err):
		return s, nil
	case apierrors.IsInvalid(err):
		return s, refusal(s, fmt.Errorf("%w (judged by a dry-run create in namespace %s, as this plan creates namespace %s)", err, probeNamespace, ns))
	}
	s.Warnings = append(s.Warnings, fmt.Sprintf("not validated before namespace %s exists: a dry-run create in namespace %s answered: %v", ns, probeNamespace, err))
	return s, nil
}

// inAbsentNamespace reports whether object i is namespaced in a namespace
// the LISTs did not find.
func (m *maker) inAbsentNamespace(i int) bool {
	ns := m.in.Objects[i].Object.GetNamespace()
	return m.res[i].Namespaced && ns != "" && m.live.get(namespaceRef(ns)) == nil
}

func namespaceRef(name string) object.Ref { return object.Ref{Kind: "Namespace", Name: name} }
