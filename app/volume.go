package app

import corev1 "k8s.io/api/core/v1"

// MountConfig mounts every key of a ConfigMap as a file under path.
func MountConfig(cm *ConfigMap, path string) WorkloadOption {
	return workloadOption(func(w *Workload) {
		if cm == nil {
			w.fail("mount %q: config map is nil", path)
			return
		}
		w.mount("config-"+cm.name, path, true, corev1.VolumeSource{
			ConfigMap: &corev1.ConfigMapVolumeSource{
				LocalObjectReference: corev1.LocalObjectReference{Name: cm.name},
			},
		})
	})
}

// MountSecret mounts every key of a Secret as a file under path, read-only.
func MountSecret(s *Secret, path string) WorkloadOption {
	return workloadOption(func(w *Workload) {
		if s == nil {
			w.fail("mount %q: secret is nil", path)
			return
		}
		w.mount("secret-"+s.name, path, true, corev1.VolumeSource{
			Secret: &corev1.SecretVolumeSource{SecretName: s.name},
		})
	})
}

// MountClaim mounts a PersistentVolumeClaim declared on the same App at path.
func MountClaim(c *Claim, path string) WorkloadOption {
	return workloadOption(func(w *Workload) {
		if c == nil {
			w.fail("mount %q: claim is nil", path)
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
		w.volumes = append(w.volumes, corev1.Volume{Name: volume, VolumeSource: src})
	}
	w.mounts = append(w.mounts, corev1.VolumeMount{Name: volume, MountPath: path, ReadOnly: readOnly})
}

// mountPathFree checks a mount path is absolute and not yet used.
func (w *Workload) mountPathFree(path string) bool {
	if len(path) == 0 || path[0] != '/' {
		w.fail("mount path %q must be absolute", path)
		return false
	}
	for _, m := range w.mounts {
		if m.MountPath == path {
			w.fail("mount path %q used twice", path)
			return false
		}
	}
	return true
}

// hasVolume reports whether a pod volume (a mount, not a claim template) is
// already declared; mounting one source at two paths shares its volume.
func (w *Workload) hasVolume(name string) bool {
	for _, v := range w.volumes {
		if v.Name == name {
			return true
		}
	}
	return false
}
