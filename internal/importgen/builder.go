package importgen

import (
	"reflect"

	"github.com/dave/jennifer/jen"
)

// built is a recognised builder call: its code, rendered once identifiers
// are known, the handle others refer to it by (nil for none), the handles
// it refers to and the shared values (label maps, images) it uses.
type built struct {
	code   func() jen.Code
	handle *handle
	refs   []*handle
	uses   []*shared
}

// recognizer turns a typed object into a builder call, or says why the
// builders cannot say it exactly.
type recognizer func(g *gen, d *decl) (built, string)

// builderOrder lists the kinds the builders make, in the order Build
// declares them: what others refer to comes first.
var builderOrder = []string{
	"Namespace", "ConfigMap", "ServiceAccount", "Role", "RoleBinding", "PersistentVolumeClaim",
	"StatefulSet", "Deployment", "DaemonSet", "Job", "CronJob", "Service",
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
	"apps/v1/DaemonSet":                        (*gen).daemonSet,
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

// options collects the options of one builder call, with the handles and
// shared values they use.
type options struct {
	list []option
	refs []*handle
	uses []*shared
}

// add appends fixed options.
func (o *options) add(codes ...jen.Code) {
	for _, c := range codes {
		o.list = append(o.list, fixed(c))
	}
}

// addOpt appends lazily rendered options.
func (o *options) addOpt(opts ...option) { o.list = append(o.list, opts...) }

// ref returns an expression of h's variable and records the reference.
func (o *options) ref(h *handle) func() jen.Code {
	o.refs = append(o.refs, h)
	return func() jen.Code { return h.ref() }
}

// value returns an expression of a shared value and records its use.
func (o *options) value(g *gen, s *shared) func() jen.Code {
	o.uses = append(o.uses, s)
	return func() jen.Code { return g.valueRef(s) }
}

// render renders every option.
func (o *options) render() []jen.Code {
	out := make([]jen.Code, len(o.list))
	for i, opt := range o.list {
		out[i] = opt()
	}
	return out
}

// merge appends the options, references and uses of other.
func (o *options) merge(other *options) {
	o.list = append(o.list, other.list...)
	o.refs = append(o.refs, other.refs...)
	o.uses = append(o.uses, other.uses...)
}

// builtCall returns the built call a.method(args..., options...).
func (o *options) builtCall(method string, h *handle, args ...func() jen.Code) built {
	return built{handle: h, refs: o.refs, uses: o.uses, code: call(method, func() []jen.Code {
		var out []jen.Code
		for _, a := range args {
			out = append(out, a())
		}
		return append(out, o.render()...)
	})}
}

// lit returns a fixed argument.
func lit(c jen.Code) func() jen.Code { return func() jen.Code { return c } }
