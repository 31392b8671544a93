package importgen

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/dave/jennifer/jen"
	corev1 "k8s.io/api/core/v1"
)

// volumePrefix is how the Mount* shortcuts name the volume they make.
var volumePrefix = map[string]string{"MountConfig": "config-", "MountSecret": "secret-", "MountClaim": "claim-"}

// takeVolumes claims the pod's volumes: as the MountConfig, MountSecret
// and MountClaim shortcuts make them when they all are, else one volume
// option each, in order.
func (g *gen) takeVolumes(w *workload, spec *corev1.PodSpec) string {
	if g.shortcutVolumes(w, spec) {
		w.shortcuts = true
		spec.Volumes = nil
		return ""
	}
	for i := range spec.Volumes {
		v := &spec.Volumes[i]
		if !validLabel(v.Name) || slices.ContainsFunc(spec.Volumes[:i], func(x corev1.Volume) bool { return x.Name == v.Name }) {
			return fmt.Sprintf("volume %q is not a DNS-1123 label or is declared twice", v.Name)
		}
		opt, ok := g.volume(&w.volumes, v)
		if !ok {
			return fmt.Sprintf("volume %q has a source with no Go literal", v.Name)
		}
		w.volumes.addOpt(opt)
	}
	spec.Volumes = nil
	return ""
}

// volume writes one volume as ConfigVolume, SecretVolume, ClaimVolume,
// EmptyDirVolume or HostPathVolume with their settings, or as Volume with
// its source.
func (g *gen) volume(o *options, v *corev1.Volume) (option, bool) {
	name, src := jen.Lit(v.Name), v.VolumeSource
	switch {
	case src.ConfigMap != nil && plainSource(src, "ConfigMap") && itemsOK(src.ConfigMap.Items) && modeOK(src.ConfigMap.DefaultMode):
		s := src.ConfigMap
		ref := g.objectRef(o, "ConfigMap", s.Name, nil)
		return func() jen.Code {
			return keyedVolume(appCall("ConfigVolume", name, ref()), s.Items, s.DefaultMode, s.Optional)
		}, validSubdomain(s.Name)
	case src.Secret != nil && plainSource(src, "Secret") && itemsOK(src.Secret.Items) && modeOK(src.Secret.DefaultMode):
		s := src.Secret
		ref := g.objectRef(o, "Secret", s.SecretName, nil)
		return func() jen.Code {
			return keyedVolume(appCall("SecretVolume", name, ref()), s.Items, s.DefaultMode, s.Optional)
		}, validSubdomain(s.SecretName)
	case src.PersistentVolumeClaim != nil && plainSource(src, "PersistentVolumeClaim") && validSubdomain(src.PersistentVolumeClaim.ClaimName):
		s := src.PersistentVolumeClaim
		ref := g.objectRef(o, "PersistentVolumeClaim", s.ClaimName, nil)
		return func() jen.Code {
			c := appCall("ClaimVolume", name, ref())
			if s.ReadOnly {
				c = c.Dot("ReadOnlyClaim").Call()
			}
			return c
		}, true
	case src.EmptyDir != nil && plainSource(src, "EmptyDir") && (src.EmptyDir.Medium == "" || src.EmptyDir.Medium == corev1.StorageMediumMemory):
		return fixed(emptyDir(name, src.EmptyDir)), true
	case src.HostPath != nil && plainSource(src, "HostPath") && strings.HasPrefix(src.HostPath.Path, "/"):
		c := appCall("HostPathVolume", name, jen.Lit(src.HostPath.Path))
		if t := src.HostPath.Type; t != nil {
			c = c.Dot("Type").Call(jen.Lit(string(*t)))
		}
		return fixed(c), true
	}
	l := &literal{}
	code, err := l.expr(reflectOf(src))
	return fixed(appCallLong("Volume", name, code)), err == nil
}

// plainSource reports whether src sets only its field named field.
func plainSource(src corev1.VolumeSource, field string) bool {
	v := reflect.ValueOf(&src).Elem()
	v.FieldByName(field).SetZero()
	return v.IsZero()
}

// itemsOK reports whether Item can say every item: a key and a relative
// path inside the volume, no mode.
func itemsOK(items []corev1.KeyToPath) bool {
	return !slices.ContainsFunc(items, func(it corev1.KeyToPath) bool {
		return it.Key == "" || it.Path == "" || it.Mode != nil || strings.HasPrefix(it.Path, "/") || slices.Contains(strings.Split(it.Path, "/"), "..")
	})
}

func modeOK(m *int32) bool { return m == nil || (*m >= 0 && *m <= 0o777) }

// keyedVolume adds the items, mode and optional flag of a ConfigMap or
// Secret volume; an explicit optional: false has no method and is
// refused by the caller's round trip.
func keyedVolume(c *jen.Statement, items []corev1.KeyToPath, mode *int32, optional *bool) jen.Code {
	for _, it := range items {
		c = c.Dot("Item").Call(jen.Lit(it.Key), jen.Lit(it.Path))
	}
	if mode != nil {
		c = c.Dot("Mode").Call(jen.Op(fmt.Sprintf("0o%o", *mode)))
	}
	if optional != nil && *optional {
		c = c.Dot("Optional").Call()
	}
	return c
}

// emptyDir writes an EmptyDirVolume with its medium and size limit.
func emptyDir(name jen.Code, e *corev1.EmptyDirVolumeSource) jen.Code {
	c := appCall("EmptyDirVolume", name)
	if e.Medium == corev1.StorageMediumMemory {
		c = c.Dot("Memory").Call()
	}
	if e.SizeLimit != nil {
		c = c.Dot("SizeLimit").Call(jen.Lit(e.SizeLimit.String()))
	}
	return c
}

// mounts claims a container's volume mounts: as Mount* shortcuts when the
// pod's volumes are theirs, else as Mount with ReadOnly, ReadWrite (for an
// explicit readOnly: false, among zeros), SubPath and Propagation.
func (g *gen) mounts(w *workload, o *options, c *corev1.Container, zeros []string) string {
	var paths []string
	for j := range c.VolumeMounts {
		m := &c.VolumeMounts[j]
		if !strings.HasPrefix(m.MountPath, "/") || slices.Contains(paths, m.MountPath) {
			return fmt.Sprintf("mount path %q is not absolute or is used twice", m.MountPath)
		}
		paths = append(paths, m.MountPath)
		if t := w.inlineTemplates[m.Name]; t != nil {
			path := m.MountPath
			o.addOpt(func() jen.Code { return t(path) })
		} else if w.shortcuts {
			o.addOpt(w.shortcutMounts[m.Name+"\x00"+m.MountPath])
		} else {
			zero := fmt.Sprintf("volumeMounts[%d].readOnly", j)
			rw := slices.ContainsFunc(zeros, func(z string) bool { return strings.HasSuffix(z, "."+zero) })
			if rw {
				w.readWrite = append(w.readWrite, zeros[slices.IndexFunc(zeros, func(z string) bool { return strings.HasSuffix(z, "."+zero) })])
			}
			o.add(mount(m, rw))
		}
		m.Name, m.MountPath, m.ReadOnly = "", "", false
	}
	return ""
}

// mount writes app.Mount with the settings it has, clearing them.
func mount(m *corev1.VolumeMount, readWrite bool) jen.Code {
	c := appCall("Mount", jen.Lit(m.Name), jen.Lit(m.MountPath))
	switch {
	case m.ReadOnly:
		c = c.Dot("ReadOnly").Call()
	case readWrite:
		c = c.Dot("ReadWrite").Call()
	}
	if p := m.SubPath; p != "" && !strings.HasPrefix(p, "/") && !slices.Contains(strings.Split(p, "/"), "..") {
		c = c.Dot("SubPath").Call(jen.Lit(p))
		m.SubPath = ""
	}
	if p := m.MountPropagation; p != nil && slices.Contains([]corev1.MountPropagationMode{corev1.MountPropagationNone, corev1.MountPropagationHostToContainer, corev1.MountPropagationBidirectional}, *p) {
		c = c.Dot("Propagation").Call(jen.Lit(string(*p)))
		m.MountPropagation = nil
	}
	return c
}

// shortcutVolumes reports whether the pod's volumes are exactly what the
// Mount* shortcuts make of its mounts, in the order they make them, and
// records the option of each mount.
func (g *gen) shortcutVolumes(w *workload, spec *corev1.PodSpec) bool {
	if len(spec.Volumes) == 0 {
		return false
	}
	w.shortcutMounts = map[string]option{}
	var made []string
	for _, c := range slices.Concat(spec.Containers, spec.InitContainers) {
		for _, m := range c.VolumeMounts {
			if w.templates[m.Name] {
				continue
			}
			opt, ok := g.shortcutMount(w, m, spec.Volumes)
			if !ok {
				return false
			}
			w.shortcutMounts[m.Name+"\x00"+m.MountPath] = opt
			if !slices.Contains(made, m.Name) {
				made = append(made, m.Name)
			}
		}
	}
	return slices.EqualFunc(made, spec.Volumes, func(n string, v corev1.Volume) bool { return n == v.Name })
}

// shortcutMount recognises MountConfig, MountSecret and MountClaim: the
// volume they name, with the source and read-only flag they set.
func (g *gen) shortcutMount(w *workload, m corev1.VolumeMount, volumes []corev1.Volume) (option, bool) {
	i := slices.IndexFunc(volumes, func(v corev1.Volume) bool { return v.Name == m.Name })
	if i < 0 || !reflect.DeepEqual(m, corev1.VolumeMount{Name: m.Name, MountPath: m.MountPath, ReadOnly: m.ReadOnly}) {
		return nil, false
	}
	src := volumes[i].VolumeSource
	var h *handle
	var method string
	switch {
	case src.ConfigMap != nil && reflect.DeepEqual(*src.ConfigMap, corev1.ConfigMapVolumeSource{LocalObjectReference: src.ConfigMap.LocalObjectReference}) && m.ReadOnly:
		h, method = g.handles.get("ConfigMap", src.ConfigMap.Name), "MountConfig"
	case src.Secret != nil && reflect.DeepEqual(*src.Secret, corev1.SecretVolumeSource{SecretName: src.Secret.SecretName}) && m.ReadOnly:
		h, method = g.handles.get("Secret", src.Secret.SecretName), "MountSecret"
	case src.PersistentVolumeClaim != nil && !src.PersistentVolumeClaim.ReadOnly && !m.ReadOnly:
		h, method = g.handles.get("PersistentVolumeClaim", src.PersistentVolumeClaim.ClaimName), "MountClaim"
	}
	if h == nil || m.Name != volumePrefix[method]+h.name || !plainSource(src, map[string]string{"MountConfig": "ConfigMap", "MountSecret": "Secret", "MountClaim": "PersistentVolumeClaim"}[method]) {
		return nil, false
	}
	var o options
	ref := o.ref(h)
	w.volumes.refs = append(w.volumes.refs, h)
	path := m.MountPath
	return func() jen.Code { return appCall(method, ref(), jen.Lit(path)) }, true
}
