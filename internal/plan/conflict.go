package plan

import (
	"errors"
	"maps"
	"regexp"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// managerInMessage finds the manager in a field-manager conflict cause,
// e.g. `conflict with "kubectl-edit" using apps/v1`.
var managerInMessage = regexp.MustCompile(`conflict with "([^"]+)"`)

// conflictsOf reads the managers and fields of a server-side apply
// conflict (HTTP 409 with FieldManagerConflict causes), grouped by
// manager in name order. It returns nil for any other error.
func conflictsOf(err error) []Conflict {
	var se apierrors.APIStatus
	if !errors.As(err, &se) || se.Status().Details == nil {
		return nil
	}
	fields := map[string][]string{}
	for _, c := range se.Status().Details.Causes {
		if c.Type != metav1.CauseTypeFieldManagerConflict {
			continue
		}
		m := managerInMessage.FindStringSubmatch(c.Message)
		manager := "unknown manager"
		if m != nil {
			manager = m[1]
		}
		fields[manager] = append(fields[manager], strings.TrimPrefix(c.Field, "."))
	}
	var out []Conflict
	for _, m := range slices.Sorted(maps.Keys(fields)) {
		slices.Sort(fields[m])
		out = append(out, Conflict{Manager: m, Fields: fields[m]})
	}
	return out
}

// withOperations sets the Operation of each conflict from live's
// managedFields: OperationApply when the manager applied any of the
// object's fields (not a subresource's), else OperationUpdate when it
// updated them, else empty.
func withOperations(cs []Conflict, live *unstructured.Unstructured) []Conflict {
	for i := range cs {
		for _, e := range live.GetManagedFields() {
			if e.Manager != cs[i].Manager || e.Subresource != "" {
				continue
			}
			switch {
			case e.Operation == metav1.ManagedFieldsOperationApply:
				cs[i].Operation = OperationApply
			case cs[i].Operation == "":
				cs[i].Operation = OperationUpdate
			}
		}
	}
	return cs
}

// reclaimable returns the conflicts cs of live when the plan takes them
// back (Options.Reclaim) and every one is an update's: a manager that
// edited fields the release declares. A manager that applied a field
// owns it as the release does, and forcing it away would start a fight
// between two appliers: then nil, and the step stays blocked.
func (m *maker) reclaimable(cs []Conflict, live *unstructured.Unstructured) []Conflict {
	if !m.opts.Reclaim || cs == nil {
		return nil
	}
	for _, c := range withOperations(cs, live) {
		if c.Operation != OperationUpdate {
			return nil
		}
	}
	return cs
}

// immutableField returns the field an invalid-request error says is
// immutable, or "" when the error is something else.
func immutableField(err error) string {
	var se apierrors.APIStatus
	if !apierrors.IsInvalid(err) || !errors.As(err, &se) || se.Status().Details == nil {
		return ""
	}
	for _, c := range se.Status().Details.Causes {
		if strings.Contains(c.Message, "immutable") {
			return c.Field
		}
	}
	return ""
}

// conflictReason is a step's blocked reason for conflicts.
func conflictReason(cs []Conflict) string {
	var parts []string
	for _, c := range cs {
		parts = append(parts, "manager \""+c.Manager+"\" owns "+strings.Join(c.Fields, ", "))
	}
	return "field conflict: " + strings.Join(parts, "; ") + " (change the composition to match, or remove that manager's ownership)"
}
