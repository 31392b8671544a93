// Package mixed shows the three ways into one composition: typed builders,
// official k8s.io/api objects built in Go, and YAML/JSON files kept as they
// were, so a team can migrate one manifest at a time.
package mixed

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/app"
)

// Build declares the mixed app.
func Build(ctx *app.Context) (*app.Composition, error) {
	a := app.New("mixed")

	// Typed builders.
	web := a.Deployment("web",
		app.Image(ctx.Image("web")),
		app.Ports(8080),
		app.Ready(app.HTTPGet("/", 8080)),
	)
	a.Service(web, app.PortTo(80, 8080))

	// Official typed objects; apiVersion and kind come from the scheme.
	a.Objects(greeting(ctx.Value("greeting")), echo(ctx.Image("echo")))

	// Files: a multi-document YAML file and a JSON List.
	a.File("manifests/echo.yaml", "manifests/extras.json")
	return a.Composition(ctx)
}

// greeting is a ConfigMap written with k8s.io/api types.
func greeting(message string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "greeting", Labels: map[string]string{"app": "echo"}},
		Data:       map[string]string{"message": message},
	}
}

// echo is a Deployment written with k8s.io/api types.
func echo(image string) *appsv1.Deployment {
	labels := map[string]string{"app": "echo"}
	replicas := int32(1)
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "echo", Labels: labels},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{
					Name:  "echo",
					Image: image,
					Args:  []string{"-listen=:5678", "-text=hello"},
					Ports: []corev1.ContainerPort{{ContainerPort: 5678}},
					Env: []corev1.EnvVar{{Name: "MESSAGE", ValueFrom: &corev1.EnvVarSource{
						ConfigMapKeyRef: &corev1.ConfigMapKeySelector{
							LocalObjectReference: corev1.LocalObjectReference{Name: "greeting"}, Key: "message",
						},
					}}},
				}}},
			},
		},
	}
}
