package importgen

import (
	"reflect"
	"slices"

	"github.com/dave/jennifer/jen"
	corev1 "k8s.io/api/core/v1"
)

// podTemplate reads a builder pod template: the builder labels, one
// container named after the workload, the volumes its mounts make, the
// service account and the restart policy; templates are a StatefulSet's
// claim templates. It clears what it read.
func (g *gen) podTemplate(w *workload, t *corev1.PodTemplateSpec, restart corev1.RestartPolicy, templates map[string]*claimTemplate) bool {
	spec := &t.Spec
	if !g.takeTemplateMeta(&t.ObjectMeta, "", w.name) || spec.RestartPolicy != restart || len(spec.Containers) != 1 {
		return false
	}
	c := spec.Containers[0].DeepCopy()
	if c.Name != w.name || !g.container(w, c) {
		return false
	}
	volumes, ok := g.mounts(w, c.VolumeMounts, spec.Volumes, templates)
	if !ok || !reflect.DeepEqual(volumes, spec.Volumes) {
		return false
	}
	if !g.runAs(w, spec.ServiceAccountName) {
		return false
	}
	c.Name, c.VolumeMounts = "", nil
	spec.Containers, spec.Volumes, spec.RestartPolicy, spec.ServiceAccountName = nil, nil, "", ""
	return rest(c) && rest(spec) && rest(t)
}

// runAs turns a service account name into app.RunAs of its builder
// handle.
func (g *gen) runAs(w *workload, name string) bool {
	if name == "" {
		return true
	}
	sa := g.handles.get("ServiceAccount", name)
	if sa == nil {
		return false
	}
	w.body = append(w.body, func() jen.Code { return appCall("RunAs", sa.ref()) })
	return true
}

// mounts turns volume mounts into Mount* and ClaimTemplate options, in
// order, and returns the pod volumes those options make.
func (g *gen) mounts(w *workload, mounts []corev1.VolumeMount, volumes []corev1.Volume, templates map[string]*claimTemplate) ([]corev1.Volume, bool) {
	var made []corev1.Volume
	var paths []string
	next := 0
	for _, m := range mounts {
		if len(m.MountPath) == 0 || m.MountPath[0] != '/' || slices.Contains(paths, m.MountPath) || !plainMount(m) {
			return nil, false
		}
		paths = append(paths, m.MountPath)
		if t := templates[m.Name]; t != nil {
			if t.mounted || t.order != next || m.ReadOnly {
				return nil, false
			}
			t.mounted, next = true, next+1
			w.body = append(w.body, fixed(appCall("ClaimTemplate", append([]jen.Code{jen.Lit(m.Name), jen.Lit(m.MountPath)}, t.opts...)...)))
			continue
		}
		v, opt, ok := g.volumeMount(m, volumes)
		if !ok {
			return nil, false
		}
		if !slices.ContainsFunc(made, func(x corev1.Volume) bool { return x.Name == v.Name }) {
			made = append(made, v)
		}
		w.body = append(w.body, opt)
	}
	return made, next == len(templates)
}

// plainMount reports whether a mount sets only its name, path and
// read-only flag.
func plainMount(m corev1.VolumeMount) bool {
	m.Name, m.MountPath, m.ReadOnly = "", "", false
	return reflect.ValueOf(m).IsZero()
}

// volumeMount recognises MountConfig, MountSecret and MountClaim: the
// volume they name, with the source and read-only flag they set.
func (g *gen) volumeMount(m corev1.VolumeMount, volumes []corev1.Volume) (corev1.Volume, option, bool) {
	i := slices.IndexFunc(volumes, func(v corev1.Volume) bool { return v.Name == m.Name })
	if i < 0 || !validLabel(m.Name) {
		return corev1.Volume{}, nil, false
	}
	v, path := volumes[i], jen.Lit(m.MountPath)
	src := v.VolumeSource
	var h *handle
	var method string
	switch {
	case src.ConfigMap != nil && reflect.DeepEqual(*src.ConfigMap, corev1.ConfigMapVolumeSource{LocalObjectReference: src.ConfigMap.LocalObjectReference}) && m.ReadOnly:
		h, method = g.handles.get("ConfigMap", src.ConfigMap.Name), "MountConfig"
		src.ConfigMap = nil
	case src.Secret != nil && reflect.DeepEqual(*src.Secret, corev1.SecretVolumeSource{SecretName: src.Secret.SecretName}) && m.ReadOnly:
		h, method = g.handles.get("Secret", src.Secret.SecretName), "MountSecret"
		src.Secret = nil
	case src.PersistentVolumeClaim != nil && !src.PersistentVolumeClaim.ReadOnly && !m.ReadOnly:
		h, method = g.handles.get("PersistentVolumeClaim", src.PersistentVolumeClaim.ClaimName), "MountClaim"
		src.PersistentVolumeClaim = nil
	}
	if h == nil || m.Name != volumePrefix[method]+h.name || !reflect.ValueOf(src).IsZero() {
		return corev1.Volume{}, nil, false
	}
	return v, func() jen.Code { return appCall(method, h.ref(), path) }, true
}

// volumePrefix is how each mount option names its volume.
var volumePrefix = map[string]string{"MountConfig": "config-", "MountSecret": "secret-", "MountClaim": "claim-"}
