package app

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// NoWait annotates the object each builder declares, the workload itself
// rather than its pods; objects declared without it carry no annotation.
func TestNoWaitAnnotatesTheDeclaredObject(t *testing.T) {
	a := New("demo")
	ctx := testContext()
	web := a.Deployment("web", Image(ctx.Image("web")), Ports(80), NoWait())
	db := a.StatefulSet("db", Image(ctx.Image("db")), Ports(5432), ClaimTemplate("data", "/data", Storage("1Gi"), NoWait()))
	a.Service(web, ServiceType(corev1.ServiceTypeLoadBalancer), NoWait())
	a.Service(db, Headless())
	a.PersistentVolumeClaim("cache", Storage("1Gi"), NoWait())
	a.ConfigMap("settings", Data("k", "v"), NoWait())
	a.Job("migrate", Image(ctx.Image("db")), Annotation(AnnotationWait, "true"))

	comp, err := a.Composition(ctx)
	if err != nil {
		t.Fatalf("Composition() error = %v", err)
	}
	want := map[string]string{
		"Deployment/web": "false", "Service/web": "false", "PersistentVolumeClaim/cache": "false",
		"ConfigMap/settings": "false", "Job/migrate": "true",
		"StatefulSet/db": "", "Service/db": "",
	}
	seen := map[string]bool{}
	for _, o := range comp.Objects() {
		key := o.Object.GetKind() + "/" + o.Object.GetName()
		seen[key] = true
		w, ok := want[key]
		if !ok {
			continue
		}
		got, has := o.Object.GetAnnotations()[AnnotationWait]
		if got != w || has != (w != "") {
			t.Errorf("%s annotation %s = %q (set %t), want %q", key, AnnotationWait, got, has, w)
		}
		if tpl, ok := podTemplateAnnotations(o.Object.Object); ok && tpl[AnnotationWait] != nil {
			t.Errorf("%s: the pod template carries %s; only the workload should", key, AnnotationWait)
		}
	}
	for key := range want {
		if !seen[key] {
			t.Errorf("the composition has no %s", key)
		}
	}
}

// podTemplateAnnotations returns the annotations of a workload's pod
// template, if it has any.
func podTemplateAnnotations(obj map[string]any) (map[string]any, bool) {
	spec, _ := obj["spec"].(map[string]any)
	tpl, _ := spec["template"].(map[string]any)
	meta, _ := tpl["metadata"].(map[string]any)
	ann, ok := meta["annotations"].(map[string]any)
	return ann, ok
}
