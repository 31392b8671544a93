package readiness

import "k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

// condition is one entry of status.conditions.
type condition struct {
	Status, Reason, Message string
}

// conditionOf returns the status.conditions entry of type typ, if any.
func conditionOf(obj *unstructured.Unstructured, typ string) (condition, bool) {
	list, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, item := range list {
		m, ok := item.(map[string]any)
		if !ok || m["type"] != typ {
			continue
		}
		return condition{Status: str(m, "status"), Reason: str(m, "reason"), Message: str(m, "message")}, true
	}
	return condition{}, false
}

// isTrue reports whether the condition typ is present with status True.
func isTrue(obj *unstructured.Unstructured, typ string) bool {
	c, ok := conditionOf(obj, typ)
	return ok && c.Status == "True"
}

// str returns m[key] when it is a string.
func str(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

// explain joins a condition's reason and message: "Reason: message".
func (c condition) explain() string {
	switch {
	case c.Reason == "":
		return c.Message
	case c.Message == "":
		return c.Reason
	}
	return c.Reason + ": " + c.Message
}
