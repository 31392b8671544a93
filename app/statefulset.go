package app

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// claimTemplate is a StatefulSet's per-pod volume claim.
type claimTemplate struct {
	name string
	spec claimSpec
}

// ClaimTemplate gives each pod of a StatefulSet its own
// PersistentVolumeClaim named name, mounted at path in the container being
// declared (with path "", mount it with Mount, in any container). Storage
// is required; the access mode defaults to ReadWriteOnce. The template
// carries the StatefulSet's builder labels unless Labels says otherwise.
func ClaimTemplate(name, path string, opts ...ClaimOption) WorkloadOption {
	return workloadOption(func(w *Workload) {
		w.only("ClaimTemplate", "StatefulSet")
		spec := newClaimSpec(opts)
		for _, msg := range spec.errs {
			w.fail("claim template %q: %s", name, msg)
		}
		if msg := dnsLabel(name); msg != "" {
			w.fail("claim template %q: name must be a %s", name, msg)
		}
		if w.hasClaimTemplate(name) {
			w.fail("claim template %q declared twice", name)
			return
		}
		w.claimTemplates = append(w.claimTemplates, claimTemplate{name: name, spec: spec})
		if path != "" {
			Mount(name, path).applyWorkload(w)
		}
	})
}

// GoverningService names the Service that gives a StatefulSet's pods their
// network identity; without it, the Service named after the StatefulSet.
func GoverningService(name string) WorkloadOption {
	return workloadOption(func(w *Workload) {
		if !w.podOption("GoverningService") || !w.only("GoverningService", "StatefulSet") {
			return
		}
		if msg := dnsLabel(name); msg != "" {
			w.fail("governing service %q must be a %s", name, msg)
			return
		}
		w.governing = &name
	})
}

// StatefulSet declares a StatefulSet: pods with stable names and, through
// ClaimTemplate, their own storage. Its governing Service is the one named
// after it (see GoverningService); declare it with a.Service(set,
// app.Headless()). Image is required.
func (a *App) StatefulSet(name string, opts ...WorkloadOption) *Workload {
	w := a.declareWorkload("StatefulSet", name, opts)
	service := name
	if w.governing != nil {
		service = *w.governing
	}
	a.addWorkload(w, &appsv1.StatefulSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "StatefulSet"},
		ObjectMeta: a.objectMeta(w),
		Spec: appsv1.StatefulSetSpec{
			Replicas:             w.replicas,
			ServiceName:          service,
			Selector:             &metav1.LabelSelector{MatchLabels: w.selectorLabels(a)},
			Template:             a.podTemplate(w, ""),
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
			ObjectMeta: meta(t.name, a.labelsOf(w.name, &t.spec.common), t.spec.annotations),
			Spec:       t.spec.pvcSpec(),
		})
	}
	return out
}
