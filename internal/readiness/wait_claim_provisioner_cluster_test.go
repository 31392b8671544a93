package readiness_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/pynenc/piceli/internal/readiness"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// unservedClass creates a StorageClass, named after ns, whose provisioner
// (minikube's, as public manifests name it) nothing in the sandbox runs,
// and removes it when the test ends.
func unservedClass(t *testing.T, sb *sandboxtest.Sandbox, ns string) string {
	t.Helper()
	immediate := storagev1.VolumeBindingImmediate
	class := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: ns + "-fast"}, Provisioner: "k8s.io/minikube-hostpath", VolumeBindingMode: &immediate}
	if _, err := sb.Clientset.StorageV1().StorageClasses().Create(t.Context(), class, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create StorageClass/%s: %v", class.Name, err)
	}
	t.Cleanup(func() {
		_ = sb.Clientset.StorageV1().StorageClasses().Delete(context.Background(), class.Name, metav1.DeleteOptions{})
	})
	return class.Name
}

// betaClaim asks for 1Gi, read-write by one node, naming its class only
// through the beta annotation, as older public manifests do.
func betaClaim(name, class string) corev1.PersistentVolumeClaim {
	return corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{readiness.BetaClassAnnotation: class}},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
		},
	}
}

// The issue 27 case: a claim names its class by the beta annotation, and
// that class's provisioner runs nowhere in the cluster. The wait says so,
// naming the class, at the poll after the one that first saw the claim
// Pending, and without waiting for its timeout.
func TestWaitNamesAClassWithoutProvisionerWithinOnePoll(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	ns := sb.Namespace(t)
	ctx, cancel := context.WithCancel(testContext(t))
	defer cancel()
	class := unservedClass(t, sb, ns)
	pvc := betaClaim("data", class)
	if _, err := sb.Clientset.CoreV1().PersistentVolumeClaims(ns).Create(ctx, &pvc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	target := readiness.Target{GVR: schema.GroupVersionResource{Version: "v1", Resource: "persistentvolumeclaims"}, Kind: "PersistentVolumeClaim", Namespace: ns, Name: "data"}

	polls, toldAt := 0, 0
	var told []string
	_, err := readiness.Wait(ctx, sb.Dynamic, []readiness.Target{target}, readiness.WaitOptions{
		Timeout: time.Minute,
		OnPoll:  func([]readiness.Target) { polls++ },
		OnDiagnosis: func(o readiness.Object) {
			told, toldAt = o.Diagnosis, polls
			cancel()
		},
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait() = %v, want it cancelled once the diagnosis was told", err)
	}
	want := `StorageClass "` + class + `" (provisioner k8s.io/minikube-hostpath): no provisioner is running for it in this cluster`
	if len(told) != 1 || !strings.HasPrefix(told[0], want) {
		t.Fatalf("OnDiagnosis was given %q, want one line starting %q", told, want)
	}
	if toldAt != 2 {
		t.Errorf("OnDiagnosis was called after poll %d; want poll 2, the one after the first that saw the claim Pending", toldAt)
	}
}

// The same class behind a StatefulSet's claim template, as the issue's
// public manifests had it: the wait names the claim and its class early,
// and when it times out its error says the same, with no stray text from
// the scheduler's message.
func TestWaitExplainsAStatefulSetWhoseClaimHasNoProvisioner(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	ns := sb.Namespace(t)
	ctx := testContext(t)
	class := unservedClass(t, sb, ns)
	labels := map[string]string{"app": "cassandra"}
	one := int32(1)
	sts := &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: "cassandra"},
		Spec: appsv1.StatefulSetSpec{
			Replicas: &one, ServiceName: "cassandra",
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{
					Name: "cassandra", Image: "example.invalid/cassandra:1",
					VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/data"}},
				}}},
			},
			VolumeClaimTemplates: []corev1.PersistentVolumeClaim{betaClaim("data", class)},
		},
	}
	if _, err := sb.Clientset.AppsV1().StatefulSets(ns).Create(ctx, sts, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	target := readiness.Target{GVR: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "statefulsets"}, Kind: "StatefulSet", Namespace: ns, Name: "cassandra"}

	var told []string
	_, err := readiness.Wait(ctx, sb.Dynamic, []readiness.Target{target}, readiness.WaitOptions{
		Interval: 500 * time.Millisecond, Timeout: 8 * time.Second,
		OnDiagnosis: func(o readiness.Object) { told = o.Diagnosis },
	})
	var nr *readiness.NotReadyError
	if !errors.As(err, &nr) || !errors.Is(err, readiness.ErrTimeout) {
		t.Fatalf("Wait() = %v, want a *NotReadyError that timed out", err)
	}
	t.Logf("Wait() error:\n%v", err)
	want := `claim data-cassandra-0: StorageClass "` + class + `" (provisioner k8s.io/minikube-hostpath): no provisioner is running for it in this cluster`
	if len(told) != 1 || !strings.HasPrefix(told[0], want) {
		t.Errorf("OnDiagnosis was last given %q, want one line starting %q", told, want)
	}
	if !strings.Contains(err.Error(), want) {
		t.Errorf("Wait() error =\n%v\nwant it to contain %q", err, want)
	}
	for _, line := range nr.Objects[0].Diagnosis {
		if strings.HasSuffix(line, "not found") || strings.Contains(line, ". not found") {
			t.Errorf("diagnosis line %q carries the scheduler's stray %q", line, "not found")
		}
	}
}
