package app

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// claimTemplate is a StatefulSet's per-pod volume claim and its mount.
type claimTemplate struct {
	name string
	path string
	spec claimSpec
}

// ClaimTemplate gives each pod of a StatefulSet its own
// PersistentVolumeClaim named name, mounted at path. Storage is required;
// the access mode defaults to ReadWriteOnce.
func ClaimTemplate(name, path string, opts ...ClaimOption) WorkloadOption {
	return workloadOption(func(w *Workload) {
		spec := newClaimSpec(opts)
		for _, msg := range spec.errs {
			w.fail("claim template %q: %s", name, msg)
		}
		if msg := dnsLabel(name); msg != "" {
			w.fail("claim template %q: name must be a %s", name, msg)
		}
		if !w.mountPathFree(path) {
			return
		}
		w.claimTemplates = append(w.claimTemplates, claimTemplate{name: name, path: path, spec: spec})
		w.mounts = append(w.mounts, corev1.VolumeMount{Name: name, MountPath: path})
	})
}

// StatefulSet declares a StatefulSet: pods with stable names and, through
// ClaimTemplate, their own storage. Its governing Service is the one named
// after it; declare it with a.Service(set, app.Headless()). Image is
// required.
func (a *App) StatefulSet(name string, opts ...WorkloadOption) *Workload {
	w := a.declareWorkload("StatefulSet", name, opts)
	w.rejectJobOptions(a)
	a.addWorkload(w, &appsv1.StatefulSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "StatefulSet"},
		ObjectMeta: meta(name, a.labels(name), w.annotations),
		Spec: appsv1.StatefulSetSpec{
			Replicas:             w.replicas,
			ServiceName:          name,
			Selector:             &metav1.LabelSelector{MatchLabels: a.selector(name)},
			Template:             a.podTemplate(w, corev1.RestartPolicyAlways),
			VolumeClaimTemplates: a.claimTemplates(w),
		},
	})
	return w
}

// claimTemplates returns a StatefulSet's claim templates.
func (a *App) claimTemplates(w *Workload) []corev1.PersistentVolumeClaim {
	var out []corev1.PersistentVolumeClaim
	for _, t := range w.claimTemplates {
		out = append(out, corev1.PersistentVolumeClaim{
			ObjectMeta: meta(t.name, a.labels(w.name), nil),
			Spec:       t.spec.pvcSpec(),
		})
	}
	return out
}
