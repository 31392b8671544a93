package status

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/pynenc/piceli/internal/object"
)

func obj(apiVersion, kind, name string, spec, status map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": apiVersion, "kind": kind,
		"metadata": map[string]any{"name": name, "namespace": "shop", "generation": int64(1)},
	}}
	if spec != nil {
		u.Object["spec"] = spec
	}
	if status != nil {
		status["observedGeneration"] = int64(1)
		u.Object["status"] = status
	}
	return u
}

func declare(u *unstructured.Unstructured, resource string) Declared {
	gv, _ := schema.ParseGroupVersion(u.GetAPIVersion())
	return Declared{Ref: object.RefOf(u), GVR: gv.WithResource(resource)}
}

func available(ready int64) map[string]any {
	return map[string]any{"replicas": ready, "readyReplicas": ready, "updatedReplicas": ready, "availableReplicas": ready,
		"conditions": []any{map[string]any{"type": "Available", "status": "True"}}}
}

func pullingPod(name string) corev1.Pod {
	return corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop", Labels: map[string]string{"app": "api"}},
		Status: corev1.PodStatus{Phase: corev1.PodPending, ContainerStatuses: []corev1.ContainerStatus{{
			Name: "api", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff", Message: "Back-off pulling image"}},
		}}},
	}
}

func TestCompute(t *testing.T) {
	selector := map[string]any{"matchLabels": map[string]any{"app": "api"}}
	web := obj("apps/v1", "Deployment", "web", map[string]any{"replicas": int64(2), "selector": map[string]any{"matchLabels": map[string]any{"app": "web"}}}, available(2))
	api := obj("apps/v1", "Deployment", "api", map[string]any{"replicas": int64(1), "selector": selector},
		map[string]any{"replicas": int64(1), "unavailableReplicas": int64(1), "conditions": []any{map[string]any{"type": "Available", "status": "False", "reason": "MinimumReplicasUnavailable", "message": "Deployment does not have minimum availability."}}})
	db := obj("apps/v1", "StatefulSet", "db", map[string]any{"replicas": int64(1), "selector": map[string]any{"matchLabels": map[string]any{"app": "db"}},
		"volumeClaimTemplates": []any{map[string]any{"metadata": map[string]any{"name": "data"}}, map[string]any{"metadata": map[string]any{"name": "logs"}}}},
		map[string]any{"replicas": int64(1), "readyReplicas": int64(0), "currentReplicas": int64(1), "updatedReplicas": int64(1)})
	svc := obj("v1", "Service", "web", map[string]any{"ports": []any{map[string]any{"name": "http", "port": int64(80), "targetPort": "http", "protocol": "TCP"}}}, nil)
	ing := obj("networking.k8s.io/v1", "Ingress", "shop", map[string]any{"ingressClassName": "nginx",
		"rules": []any{map[string]any{"host": "shop.example.com"}, map[string]any{"host": "a.example.com"}, map[string]any{"host": "shop.example.com"}}}, nil)
	gone := obj("v1", "ConfigMap", "gone", nil, nil)
	hidden := obj("v1", "Secret", "hidden", nil, nil)
	declared := []Declared{declare(web, "deployments"), declare(api, "deployments"), declare(db, "statefulsets"), declare(svc, "services"),
		declare(ing, "ingresses"), declare(gone, "configmaps"), declare(hidden, "secrets")}
	live := Live{
		Objects: map[object.Ref]*unstructured.Unstructured{object.RefOf(web): web, object.RefOf(api): api, object.RefOf(db): db, object.RefOf(svc): svc, object.RefOf(ing): ing},
		Pods:    map[string][]corev1.Pod{"shop": {pullingPod("api-7d9f-x1")}},
		Claims: map[string][]corev1.PersistentVolumeClaim{"shop": {
			{ObjectMeta: metav1.ObjectMeta{Name: "data-db-0", Namespace: "shop"}, Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending}},
			{ObjectMeta: metav1.ObjectMeta{Name: "logs-db-0", Namespace: "shop", Annotations: map[string]string{"volume.beta.kubernetes.io/storage-class": "fast"}},
				Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending}},
		}},
		Unread: map[string]string{"Secret/shop": "forbidden"},
	}
	rep := Compute(declared, live)
	want := Report{
		Ready: false, Summary: "3 of 7 objects ready",
		Objects: []Object{
			{Ref: "Deployment/shop/web", Kind: "Deployment", Namespace: "shop", Name: "web", Status: "current", Ready: true, Message: "Deployment is available. Replicas: 2", Replicas: &Replicas{Ready: 2, Desired: 2}},
			{Ref: "Deployment/shop/api", Kind: "Deployment", Namespace: "shop", Name: "api", Status: "in-progress", Message: rep.Objects[1].Message, Replicas: &Replicas{Ready: 0, Desired: 1},
				Reasons: []string{"pod api-7d9f-x1 container api: ImagePullBackOff: Back-off pulling image"}},
			{Ref: "StatefulSet/shop/db", Kind: "StatefulSet", Namespace: "shop", Name: "db", Status: "in-progress", Message: rep.Objects[2].Message, Replicas: &Replicas{Ready: 0, Desired: 1},
				Reasons: []string{"claim data-db-0 is Pending (no storage class)", "claim logs-db-0 is Pending (storage class fast)"}},
			{Ref: "Service/shop/web", Kind: "Service", Namespace: "shop", Name: "web", Status: "current", Ready: true, Message: "service is ready"},
			{Ref: "Ingress/shop/shop", Kind: "Ingress", Namespace: "shop", Name: "shop", Status: "current", Ready: true, Message: rep.Objects[4].Message},
			{Ref: "ConfigMap/shop/gone", Kind: "ConfigMap", Namespace: "shop", Name: "gone", Status: "missing", Message: "not found in the cluster"},
			{Ref: "Secret/shop/hidden", Kind: "Secret", Namespace: "shop", Name: "hidden", Status: "unknown", Message: "list failed: forbidden"},
		},
		Services:  []Service{{Name: "web", Namespace: "shop", Type: "ClusterIP", Ports: []ServicePort{{Name: "http", Port: 80, TargetPort: "http", Protocol: "TCP"}}}},
		Ingresses: []Ingress{{Name: "shop", Namespace: "shop", Class: "nginx", Hosts: []string{"a.example.com", "shop.example.com"}}},
	}
	if diff := cmp.Diff(want, rep); diff != "" {
		t.Errorf("Compute() (-want +got):\n%s", diff)
	}
	for _, i := range []int{1, 2, 4} {
		if rep.Objects[i].Message == "" {
			t.Errorf("Compute() object %d has no message", i)
		}
	}
}

func TestComputeAllReady(t *testing.T) {
	cm := obj("v1", "ConfigMap", "cfg", nil, nil)
	rep := Compute([]Declared{declare(cm, "configmaps")}, Live{Objects: map[object.Ref]*unstructured.Unstructured{object.RefOf(cm): cm}})
	if !rep.Ready || rep.Summary != "1 of 1 objects ready" {
		t.Errorf("Compute() = %+v, want ready", rep)
	}
}
