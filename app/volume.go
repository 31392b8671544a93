package app

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// VolumeSpec is one pod volume; make it with ConfigVolume, SecretVolume,
// ClaimVolume, EmptyDirVolume, HostPathVolume or Volume, and mount it
// with Mount. The methods return a copy with one more setting of its
// source; a method that does not apply to the source is reported.
type VolumeSpec struct {
	v    corev1.Volume
	ref  Handle // the ConfigMap, Secret or claim it reads
	errs []string
}

// Volume declares a pod volume of any source (projected, downward API,
// CSI, ...), copied as given.
func Volume(name string, src corev1.VolumeSource) VolumeSpec {
	return VolumeSpec{v: corev1.Volume{Name: name, VolumeSource: *src.DeepCopy()}}
}

// ConfigVolume declares a volume holding the keys of a ConfigMap (declared
// on the same App, or named with ConfigMapRef) as files.
func ConfigVolume(name string, cm *ConfigMap) VolumeSpec {
	if cm == nil {
		return VolumeSpec{v: corev1.Volume{Name: name}, errs: []string{"config map is nil"}}
	}
	return VolumeSpec{ref: cm, v: corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{
		ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: cm.name}},
	}}}
}

// SecretVolume declares a volume holding the keys of a Secret (declared on
// the same App, or named with SecretRef) as files.
func SecretVolume(name string, s *Secret) VolumeSpec {
	if s == nil {
		return VolumeSpec{v: corev1.Volume{Name: name}, errs: []string{"secret is nil"}}
	}
	return VolumeSpec{ref: s, v: corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{
		Secret: &corev1.SecretVolumeSource{SecretName: s.name},
	}}}
}

// ClaimVolume declares a volume backed by a PersistentVolumeClaim
// (declared on the same App, or named with ClaimRef).
func ClaimVolume(name string, c *Claim) VolumeSpec {
	if c == nil {
		return VolumeSpec{v: corev1.Volume{Name: name}, errs: []string{"claim is nil"}}
	}
	return VolumeSpec{ref: c, v: corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{
		PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: c.name},
	}}}
}

// EmptyDirVolume declares a scratch volume that lives as long as the pod.
func EmptyDirVolume(name string) VolumeSpec {
	return VolumeSpec{v: corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
}

// HostPathVolume declares a volume of a path on the node.
func HostPathVolume(name, path string) VolumeSpec {
	s := VolumeSpec{v: corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: path}}}}
	if len(path) == 0 || path[0] != '/' {
		s.errs = append(s.errs, fmt.Sprintf("host path %q must be absolute", path))
	}
	return s
}

// Item projects one key of a ConfigMap or Secret volume to a file path
// (relative to the mount); with items, only the keys named appear.
func (s VolumeSpec) Item(key, path string) VolumeSpec {
	item := corev1.KeyToPath{Key: key, Path: path}
	if key == "" || path == "" || strings.HasPrefix(path, "/") || slices.Contains(strings.Split(path, "/"), "..") {
		return s.fail(fmt.Sprintf("item %q: needs a key and a relative path inside the volume, not %q", key, path))
	}
	switch src := &s.v.VolumeSource; {
	case src.ConfigMap != nil:
		src.ConfigMap = src.ConfigMap.DeepCopy()
		src.ConfigMap.Items = append(src.ConfigMap.Items, item)
	case src.Secret != nil:
		src.Secret = src.Secret.DeepCopy()
		src.Secret.Items = append(src.Secret.Items, item)
	default:
		return s.fail("Item applies to a ConfigMap or Secret volume")
	}
	return s
}

// Optional lets the pod start when the ConfigMap or Secret is missing.
func (s VolumeSpec) Optional() VolumeSpec {
	t := true
	switch src := &s.v.VolumeSource; {
	case src.ConfigMap != nil:
		src.ConfigMap = src.ConfigMap.DeepCopy()
		src.ConfigMap.Optional = &t
	case src.Secret != nil:
		src.Secret = src.Secret.DeepCopy()
		src.Secret.Optional = &t
	default:
		return s.fail("Optional applies to a ConfigMap or Secret volume")
	}
	return s
}

// Mode sets the permission bits of the files of a ConfigMap or Secret
// volume (0o644 by default).
func (s VolumeSpec) Mode(mode int32) VolumeSpec {
	if mode < 0 || mode > 0o777 {
		return s.fail(fmt.Sprintf("mode %#o is not in 0-0777", mode))
	}
	switch src := &s.v.VolumeSource; {
	case src.ConfigMap != nil:
		src.ConfigMap = src.ConfigMap.DeepCopy()
		src.ConfigMap.DefaultMode = &mode
	case src.Secret != nil:
		src.Secret = src.Secret.DeepCopy()
		src.Secret.DefaultMode = &mode
	default:
		return s.fail("Mode applies to a ConfigMap or Secret volume")
	}
	return s
}

// Memory backs an empty-dir volume with memory (tmpfs) instead of disk.
func (s VolumeSpec) Memory() VolumeSpec {
	if s.v.EmptyDir == nil {
		return s.fail("Memory applies to an empty-dir volume")
	}
	s.v.EmptyDir = &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory, SizeLimit: s.v.EmptyDir.SizeLimit}
	return s
}

// SizeLimit bounds an empty-dir volume, as a quantity ("1Gi").
func (s VolumeSpec) SizeLimit(size string) VolumeSpec {
	q, err := resource.ParseQuantity(size)
	switch {
	case s.v.EmptyDir == nil:
		return s.fail("SizeLimit applies to an empty-dir volume")
	case err != nil:
		return s.fail(fmt.Sprintf("size limit %q: %v", size, err))
	}
	s.v.EmptyDir = &corev1.EmptyDirVolumeSource{Medium: s.v.EmptyDir.Medium, SizeLimit: &q}
	return s
}

// Type checks the host path's type on the node (Directory,
// DirectoryOrCreate, File, Socket, ...).
func (s VolumeSpec) Type(t corev1.HostPathType) VolumeSpec {
	if s.v.HostPath == nil {
		return s.fail("Type applies to a host-path volume")
	}
	s.v.HostPath = &corev1.HostPathVolumeSource{Path: s.v.HostPath.Path, Type: &t}
	return s
}

// ReadOnlyClaim mounts a claim volume read-only in every container.
func (s VolumeSpec) ReadOnlyClaim() VolumeSpec {
	if s.v.PersistentVolumeClaim == nil {
		return s.fail("ReadOnlyClaim applies to a claim volume")
	}
	s.v.PersistentVolumeClaim = &corev1.PersistentVolumeClaimVolumeSource{ClaimName: s.v.PersistentVolumeClaim.ClaimName, ReadOnly: true}
	return s
}

func (s VolumeSpec) fail(msg string) VolumeSpec {
	s.errs = append(append([]string(nil), s.errs...), msg)
	return s
}

func (s VolumeSpec) applyWorkload(w *Workload) {
	if s.ref != nil && !w.checkRef(s.ref) {
		return
	}
	for _, e := range s.errs {
		w.fail("volume %q: %s", s.v.Name, e)
	}
	if msg := dnsLabel(s.v.Name); msg != "" {
		w.fail("volume %q: name must be a %s", s.v.Name, msg)
		return
	}
	if w.hasVolume(s.v.Name) {
		w.fail("volume %q declared twice", s.v.Name)
		return
	}
	w.pod.Volumes = append(w.pod.Volumes, *s.v.DeepCopy())
}

// MountSpec mounts a pod volume in the current container; make it with
// Mount.
type MountSpec struct {
	m         corev1.VolumeMount
	readWrite bool
	errs      []string
}

// Mount mounts the pod volume (or StatefulSet claim template) named
// volume at path, an absolute path, in the container being declared.
func Mount(volume, path string) MountSpec {
	return MountSpec{m: corev1.VolumeMount{Name: volume, MountPath: path}}
}

// ReadOnly mounts the volume read-only.
func (m MountSpec) ReadOnly() MountSpec {
	m.m.ReadOnly, m.readWrite = true, false
	return m
}

// ReadWrite writes readOnly: false explicitly (the default).
func (m MountSpec) ReadWrite() MountSpec {
	m.m.ReadOnly, m.readWrite = false, true
	return m
}

// SubPath mounts only the file or directory at path inside the volume.
func (m MountSpec) SubPath(path string) MountSpec {
	m.m.SubPath = path
	if strings.HasPrefix(path, "/") || slices.Contains(strings.Split(path, "/"), "..") {
		m.errs = append(slices.Clone(m.errs), fmt.Sprintf("sub path %q must be relative and stay inside the volume", path))
	}
	return m
}

// Propagation sets how mounts propagate between the container and the host
// (None, HostToContainer or Bidirectional).
func (m MountSpec) Propagation(mode corev1.MountPropagationMode) MountSpec {
	m.m.MountPropagation = &mode
	if !slices.Contains([]corev1.MountPropagationMode{corev1.MountPropagationNone, corev1.MountPropagationHostToContainer, corev1.MountPropagationBidirectional}, mode) {
		m.errs = append(slices.Clone(m.errs), fmt.Sprintf("propagation %q is not None, HostToContainer or Bidirectional", mode))
	}
	return m
}

func (m MountSpec) applyWorkload(w *Workload) {
	for _, e := range m.errs {
		w.fail("mount %q: %s", m.m.MountPath, e)
	}
	if len(m.errs) > 0 || !w.mountPathFree(m.m.MountPath) {
		return
	}
	if m.readWrite {
		w.cur.readWrite = append(w.cur.readWrite, len(w.cur.c.VolumeMounts))
	}
	w.cur.c.VolumeMounts = append(w.cur.c.VolumeMounts, m.m)
}

// MountConfig mounts every key of a ConfigMap as a file under path,
// read-only, through a volume named "config-<name>".
func MountConfig(cm *ConfigMap, path string) WorkloadOption {
	return workloadOption(func(w *Workload) {
		if cm == nil {
			w.fail("mount %q: config map is nil", path)
			return
		}
		if !w.checkRef(cm) {
			return
		}
		w.mount("config-"+cm.name, path, true, corev1.VolumeSource{
			ConfigMap: &corev1.ConfigMapVolumeSource{
				LocalObjectReference: corev1.LocalObjectReference{Name: cm.name},
			},
		})
	})
}

// MountSecret mounts every key of a Secret as a file under path,
// read-only, through a volume named "secret-<name>".
func MountSecret(s *Secret, path string) WorkloadOption {
	return workloadOption(func(w *Workload) {
		if s == nil {
			w.fail("mount %q: secret is nil", path)
			return
		}
		if !w.checkRef(s) {
			return
		}
		w.mount("secret-"+s.name, path, true, corev1.VolumeSource{
			Secret: &corev1.SecretVolumeSource{SecretName: s.name},
		})
	})
}

// MountClaim mounts a PersistentVolumeClaim declared on the same App at
// path, through a volume named "claim-<name>".
func MountClaim(c *Claim, path string) WorkloadOption {
	return workloadOption(func(w *Workload) {
		if c == nil {
			w.fail("mount %q: claim is nil", path)
			return
		}
		if !w.checkRef(c) {
			return
		}
		w.mount("claim-"+c.name, path, false, corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: c.name},
		})
	})
}

// mount adds a volume and its mount, checking the path and name.
func (w *Workload) mount(volume, path string, readOnly bool, src corev1.VolumeSource) {
	if !w.mountPathFree(path) {
		return
	}
	if msg := dnsLabel(volume); msg != "" {
		w.fail("volume %q: name must be a %s", volume, msg)
	}
	if !w.hasVolume(volume) {
		w.pod.Volumes = append(w.pod.Volumes, corev1.Volume{Name: volume, VolumeSource: src})
	}
	w.cur.c.VolumeMounts = append(w.cur.c.VolumeMounts, corev1.VolumeMount{Name: volume, MountPath: path, ReadOnly: readOnly})
}

// mountPathFree checks a mount path is absolute and not yet used by the
// current container.
func (w *Workload) mountPathFree(path string) bool {
	if len(path) == 0 || path[0] != '/' {
		w.fail("mount path %q must be absolute", path)
		return false
	}
	for _, m := range w.cur.c.VolumeMounts {
		if m.MountPath == path {
			w.fail("mount path %q used twice", path)
			return false
		}
	}
	return true
}

// hasVolume reports whether a pod volume is already declared; mounting one
// source at two paths shares its volume.
func (w *Workload) hasVolume(name string) bool {
	for _, v := range w.pod.Volumes {
		if v.Name == name {
			return true
		}
	}
	return false
}

// checkMounts records mounts of a container that name no pod volume or
// claim template.
func (w *Workload) checkMounts(c *container) {
	for _, m := range c.c.VolumeMounts {
		if !w.hasVolume(m.Name) && !w.hasClaimTemplate(m.Name) {
			w.fail("mount %q: no volume %q (declare it with app.Volume, app.ConfigVolume, ...)", m.MountPath, m.Name)
		}
	}
}

// hasClaimTemplate reports whether a StatefulSet claim template is named
// name.
func (w *Workload) hasClaimTemplate(name string) bool {
	for _, t := range w.claimTemplates {
		if t.name == name {
			return true
		}
	}
	return false
}
