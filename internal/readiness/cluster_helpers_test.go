package readiness_test

import (
	"context"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/pynenc/piceli/internal/readiness"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

var deployments = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}

// deployment returns a Deployment of replicas fake pods labelled app=name;
// edit, when given, changes its pod spec.
func deployment(name string, replicas int32, edit func(*corev1.PodSpec)) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{
					Name: "web", Image: "example.invalid/" + name + ":1",
				}}},
			},
		},
	}
	if edit != nil {
		edit(&d.Spec.Template.Spec)
	}
	return d
}

// createDeployment creates d in ns and returns its Wait target.
func createDeployment(t *testing.T, sb *sandboxtest.Sandbox, ns string, d *appsv1.Deployment) readiness.Target {
	t.Helper()
	if _, err := sb.Clientset.AppsV1().Deployments(ns).Create(t.Context(), d, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create Deployment/%s/%s: %v", ns, d.Name, err)
	}
	return readiness.Target{GVR: deployments, Kind: "Deployment", Namespace: ns, Name: d.Name}
}

// assertLoopbackNodes fails the test unless every node address is
// loopback: the sandbox sends no traffic elsewhere.
func assertLoopbackNodes(t *testing.T, sb *sandboxtest.Sandbox) {
	t.Helper()
	nodes, err := sb.Clientset.CoreV1().Nodes().List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list nodes: %v", err)
	}
	for _, n := range nodes.Items {
		for _, a := range n.Status.Addresses {
			if a.Type == corev1.NodeInternalIP && a.Address != "127.0.0.1" && a.Address != "::1" {
				t.Fatalf("Node/%s has address %s; the sandbox must stay on loopback", n.Name, a.Address)
			}
		}
	}
}

// testContext returns a test context bounded well past the waits it serves.
func testContext(t *testing.T) context.Context {
	return sandboxtest.Context(t, 2*time.Minute)
}
