package app

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
)

// Env sets a literal environment variable.
func Env(name, value string) WorkloadOption {
	return workloadOption(func(w *Workload) {
		w.addEnv(corev1.EnvVar{Name: name, Value: value})
	})
}

// EnvRef is an environment variable read from a key of a ConfigMap or a
// Secret; make it with EnvFromConfig or EnvFromSecret.
type EnvRef struct {
	name, key string
	what      string // "config map" or "secret", for messages
	cm        *ConfigMap
	secret    *Secret
	optional  *bool
}

// EnvFromConfig sets environment variable name from key of a ConfigMap
// declared on the same App (or named with ConfigMapRef).
func EnvFromConfig(name string, cm *ConfigMap, key string) EnvRef {
	return EnvRef{name: name, key: key, cm: cm, what: "config map"}
}

// EnvFromSecret sets environment variable name from key of a Secret
// declared on the same App (or named with SecretRef). The value never
// passes through the composition.
func EnvFromSecret(name string, s *Secret, key string) EnvRef {
	return EnvRef{name: name, key: key, secret: s, what: "secret"}
}

// Optional lets the container start without the key (or the whole object):
// the variable is then unset. The key is not checked against the handle.
func (e EnvRef) Optional() EnvRef {
	t := true
	e.optional = &t
	return e
}

// Required writes optional: false, the default, explicitly.
func (e EnvRef) Required() EnvRef {
	f := false
	e.optional = &f
	return e
}

func (e EnvRef) applyWorkload(w *Workload) {
	if e.cm == nil && e.secret == nil {
		w.fail("env %q: %s is nil", e.name, e.what)
		return
	}
	if e.cm != nil && !w.checkRef(e.cm) || e.secret != nil && !w.checkRef(e.secret) {
		return
	}
	optional := e.optional != nil && *e.optional
	src := &corev1.EnvVarSource{}
	if e.cm != nil {
		if !optional && !e.cm.knows(e.key) {
			w.fail("env %q: configmap %q has no key %q", e.name, e.cm.name, e.key)
		}
		src.ConfigMapKeyRef = &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: e.cm.name}, Key: e.key, Optional: e.optional}
	} else {
		if !optional && !e.secret.knows(e.key) {
			w.fail("env %q: secret %q has no key %q", e.name, e.secret.name, e.key)
		}
		src.SecretKeyRef = &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: e.secret.name}, Key: e.key, Optional: e.optional}
	}
	w.addEnv(corev1.EnvVar{Name: e.name, ValueFrom: src})
}

// EnvFromField sets environment variable name from a field of the pod
// (the downward API): "metadata.name", "metadata.namespace",
// "spec.nodeName", "status.podIP", "metadata.labels['app']", ...
func EnvFromField(name, fieldPath string) WorkloadOption {
	return workloadOption(func(w *Workload) {
		if fieldPath == "" {
			w.fail("env %q: field path is empty", name)
			return
		}
		w.addEnv(corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: fieldPath}}})
	})
}

// EnvFromResource sets environment variable name from the container's own
// request or limit of a resource ("limits.memory", "requests.cpu", ...).
func EnvFromResource(name, res string) WorkloadOption {
	return workloadOption(func(w *Workload) {
		if res == "" {
			w.fail("env %q: resource is empty", name)
			return
		}
		w.addEnv(corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{ResourceFieldRef: &corev1.ResourceFieldSelector{Resource: res}}})
	})
}

// EnvFromAllSpec sets one environment variable per key of a ConfigMap or
// Secret; make it with EnvFromAll.
type EnvFromAllSpec struct {
	src      Handle
	prefix   string
	optional *bool
}

// EnvFromAll sets one environment variable per key of a ConfigMap or
// Secret handle (declared on the same App or named with ConfigMapRef or
// SecretRef), the variable named after the key.
func EnvFromAll(src Handle) EnvFromAllSpec { return EnvFromAllSpec{src: src} }

// Prefix puts prefix in front of every variable name.
func (e EnvFromAllSpec) Prefix(prefix string) EnvFromAllSpec {
	e.prefix = prefix
	return e
}

// Optional lets the container start when the ConfigMap or Secret is
// missing.
func (e EnvFromAllSpec) Optional() EnvFromAllSpec {
	t := true
	e.optional = &t
	return e
}

func (e EnvFromAllSpec) applyWorkload(w *Workload) {
	var src corev1.EnvFromSource
	switch h := e.src.(type) {
	case *ConfigMap:
		if h == nil {
			break
		}
		src.ConfigMapRef = &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: h.name}, Optional: e.optional}
	case *Secret:
		if h == nil {
			break
		}
		src.SecretRef = &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: h.name}, Optional: e.optional}
	}
	if src.ConfigMapRef == nil && src.SecretRef == nil {
		w.fail("env from all: want a *app.ConfigMap or *app.Secret, got %T", e.src)
		return
	}
	if !w.checkRef(e.src) {
		return
	}
	src.Prefix = e.prefix
	w.cur.c.EnvFrom = append(w.cur.c.EnvFrom, src)
}

// addEnv adds an environment variable to the current container, checking
// its name and that it is declared once.
func (w *Workload) addEnv(v corev1.EnvVar) {
	if msg := explain("valid environment variable name", validation.IsEnvVarName(v.Name)); msg != "" {
		w.fail("env %q: name must be a %s", v.Name, msg)
	}
	for _, e := range w.cur.c.Env {
		if e.Name == v.Name {
			w.fail("env %q declared twice", v.Name)
			return
		}
	}
	w.cur.c.Env = append(w.cur.c.Env, v)
}
