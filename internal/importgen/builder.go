package importgen

import (
	"reflect"

	"github.com/dave/jennifer/jen"
	"k8s.io/apimachinery/pkg/runtime"
)

// built is a recognised builder call: its code, rendered once identifiers
// are known, and the handle others refer to it by (nil for none).
type built struct {
	code   func() jen.Code
	handle *handle
}

// recognizer turns a typed object into a builder call, or reports that the
// builders cannot say it exactly.
type recognizer func(g *gen, obj runtime.Object) (built, bool)

// builderOrder lists the kinds the builders make, in the order Build
// declares them: what others refer to comes first.
var builderOrder = []string{
	"Namespace", "ConfigMap", "ServiceAccount", "Role", "RoleBinding", "PersistentVolumeClaim",
	"StatefulSet", "Deployment", "Job", "CronJob", "Service",
	"HorizontalPodAutoscaler", "PodDisruptionBudget", "Ingress", "NetworkPolicy",
}

// recognizers are keyed by "group/version/Kind"; only the versions the
// builders write can be builder calls.
var recognizers = map[string]recognizer{
	"/v1/Namespace":                            (*gen).namespace,
	"/v1/ConfigMap":                            (*gen).configMap,
	"/v1/ServiceAccount":                       (*gen).serviceAccount,
	"rbac.authorization.k8s.io/v1/Role":        (*gen).role,
	"rbac.authorization.k8s.io/v1/RoleBinding": (*gen).roleBinding,
	"/v1/PersistentVolumeClaim":                (*gen).claim,
	"apps/v1/StatefulSet":                      (*gen).statefulSet,
	"apps/v1/Deployment":                       (*gen).deployment,
	"batch/v1/Job":                             (*gen).job,
	"batch/v1/CronJob":                         (*gen).cronJob,
	"/v1/Service":                              (*gen).service,
	"autoscaling/v2/HorizontalPodAutoscaler":   (*gen).autoscaler,
	"policy/v1/PodDisruptionBudget":            (*gen).budget,
	"networking.k8s.io/v1/Ingress":             (*gen).ingress,
	"networking.k8s.io/v1/NetworkPolicy":       (*gen).networkPolicy,
}

// rest reports whether nothing is left of obj, a pointer to a struct,
// once a recognizer cleared the fields it understood (TypeMeta aside).
func rest(obj any) bool {
	v := reflect.ValueOf(obj).Elem()
	for i := range v.NumField() {
		if v.Type().Field(i).Type != typeMetaType && !v.Field(i).IsZero() {
			return false
		}
	}
	return true
}

// call returns a builder call that renders args lazily.
func call(method string, args func() []jen.Code) func() jen.Code {
	return func() jen.Code { return builderCall(method, args()) }
}
