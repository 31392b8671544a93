package app

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func TestTypedServicesLeaveAnUnsetTargetPortOut(t *testing.T) {
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "db"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{
			{Name: "unset", Port: 5432},
			{Name: "number", Port: 80, TargetPort: intstr.FromInt32(8080)},
			{Name: "named", Port: 443, TargetPort: intstr.FromString("https")},
		}},
	}
	m, err := toManifest(svc)
	if err != nil {
		t.Fatal(err)
	}
	ports := m["spec"].(map[string]any)["ports"].([]any)
	want := []any{nil, int64(8080), "https"}
	for i, p := range ports {
		if got := p.(map[string]any)["targetPort"]; got != want[i] {
			t.Errorf("port %d targetPort = %#v, want %#v", i, got, want[i])
		}
	}
}
