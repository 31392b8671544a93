package sandbox_test

import (
	"context"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// A Deployment with 2 replicas becomes Available: the controller-manager,
// the scheduler and kwok really run.
func TestDeploymentBecomesAvailable(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	ns := sb.Namespace(t)
	deploys := sb.Clientset.AppsV1().Deployments(ns)
	if _, err := deploys.Create(t.Context(), twoReplicas("web"), metav1.CreateOptions{}); err != nil {
		t.Fatalf("create Deployment/%s/web: %v", ns, err)
	}
	sandboxtest.Eventually(t, 90*time.Second, "Deployment/"+ns+"/web Available with 2 replicas",
		func(ctx context.Context) (bool, error) {
			d, err := deploys.Get(ctx, "web", metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			return d.Status.AvailableReplicas == 2 && available(d), nil
		})
}

func twoReplicas(name string) *appsv1.Deployment {
	replicas := int32(2)
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{
					Name: "web", Image: "example.invalid/web:1",
				}}},
			},
		},
	}
}

func available(d *appsv1.Deployment) bool {
	for _, c := range d.Status.Conditions {
		if c.Type == appsv1.DeploymentAvailable {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
