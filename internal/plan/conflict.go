package plan

import (
	"errors"
	"maps"
	"regexp"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
