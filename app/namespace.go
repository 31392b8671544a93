package app

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Namespace declares a Namespace (cluster-scoped). The release's own target
// namespace usually exists already; declare one only when the app owns it.
// The options every builder takes (Labels, Annotation, Edit, ...) apply.
func (a *App) Namespace(name string, opts ...CommonOption) {
	var c common
	for _, o := range opts {
		if o.set != nil {
			o.set(&c)
		}
	}
	a.reportName("Namespace", name, dnsLabel)
	if a.claim("Namespace", name) {
		a.add(name, &corev1.Namespace{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
			ObjectMeta: meta(name, a.labelsOf(name, &c), c.annotations),
		}, &c)
	}
}
