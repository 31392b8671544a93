package readiness_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/readiness"
)

func ExampleCompute() {
	deploy := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "web", "namespace": "shop", "generation": int64(2)},
		"spec":     map[string]any{"replicas": int64(2)},
		"status":   map[string]any{"observedGeneration": int64(1)},
	}}
	fmt.Println(readiness.Compute(deploy))
	// Output: {in-progress generation 2, observed 1}
}

func ExampleDiagnose() {
	pod := corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web-7d9f-abc"},
		Status: corev1.PodStatus{Phase: corev1.PodPending, ContainerStatuses: []corev1.ContainerStatus{{
			Name: "web",
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{
				Reason: "ImagePullBackOff", Message: `Back-off pulling image "x"`}},
		}}},
	}
	for _, line := range readiness.Diagnose([]corev1.Pod{pod}) {
		fmt.Println(line)
	}
	// Output: pod web-7d9f-abc container web: ImagePullBackOff: Back-off pulling image "x"
}
