package install

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/pynenc/piceli/api/v1alpha1"
	"github.com/pynenc/piceli/app"
	"github.com/pynenc/piceli/controller"
	"github.com/pynenc/piceli/plan"
)

// labels are the labels of every object of the controller's release.
func labels() map[string]string {
	return map[string]string{
		app.LabelName:      Name,
		app.LabelPartOf:    "piceli",
		app.LabelManagedBy: app.ManagedBy,
	}
}

// selector selects the controller's pods.
func selector() map[string]string { return map[string]string{app.LabelName: Name} }

// compose declares the controller's objects on a: every object for an
// install, only what an uninstall keeps otherwise (the CRD).
func compose(a *app.App, o Options, install bool) {
	a.Object(v1alpha1.CRD(), app.Labels(labels()))
	if !install {
		return
	}
	ns := o.namespace()
	a.Object(namespaceObject(ns))
	a.Object(&corev1.ServiceAccount{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"},
		ObjectMeta: meta(Name, ns),
	})
	a.Object(&rbacv1.ClusterRole{TypeMeta: typeMeta("ClusterRole"), ObjectMeta: meta(Name, ""), Rules: ControllerRules()})
	a.Object(&rbacv1.ClusterRoleBinding{TypeMeta: typeMeta("ClusterRoleBinding"), ObjectMeta: meta(Name, ""),
		RoleRef: roleRef("ClusterRole", Name), Subjects: subjects(ns)})
	a.Object(&rbacv1.Role{TypeMeta: typeMeta("Role"), ObjectMeta: meta(Name, ns), Rules: NamespaceRules()})
	a.Object(&rbacv1.RoleBinding{TypeMeta: typeMeta("RoleBinding"), ObjectMeta: meta(Name, ns),
		RoleRef: roleRef("Role", Name), Subjects: subjects(ns)})
	a.Object(&rbacv1.ClusterRole{TypeMeta: typeMeta("ClusterRole"), ObjectMeta: meta(controller.DeployerRole, ""), Rules: DeployerRules()})
	// The key's value is read from KeyFile beside release.toml when the
	// release is planned: the composition declares only its source.
	// Uninstall deletes it: the key stays on the operator's machine.
	a.Secret(StateKeySecret, app.FromFile(StateKeyKey, KeyFile), app.Labels(labels()), app.Annotation(plan.PruneAnnotation, "allow"))
	a.Object(deployment(o))
	a.Object(metricsService(ns))
}

func typeMeta(kind string) metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: kind}
}

func meta(name, namespace string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: labels()}
}

func roleRef(kind, name string) rbacv1.RoleRef {
	return rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: kind, Name: name}
}

func subjects(ns string) []rbacv1.Subject {
	return []rbacv1.Subject{{Kind: "ServiceAccount", Name: Name, Namespace: ns}}
}

// namespaceObject is the controller's namespace, which enforces the
// restricted Pod Security Standard: its pods meet it.
func namespaceObject(ns string) *corev1.Namespace {
	m := meta(ns, "")
	m.Labels["pod-security.kubernetes.io/enforce"] = "restricted"
	return &corev1.Namespace{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"}, ObjectMeta: m}
}

// deployment runs Replicas replicas of the controller with leader
// election, as User, on a read-only root filesystem.
func deployment(o Options) *appsv1.Deployment {
	ns := o.namespace()
	podLabels := labels()
	return &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: meta(Name, ns),
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](Replicas),
			Selector: &metav1.LabelSelector{MatchLabels: selector()},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: podLabels},
				Spec: corev1.PodSpec{
					ServiceAccountName:           Name,
					AutomountServiceAccountToken: ptr.To(true),
					SecurityContext: &corev1.PodSecurityContext{
						RunAsNonRoot:   ptr.To(true),
						RunAsUser:      ptr.To[int64](User),
						RunAsGroup:     ptr.To[int64](User),
						FSGroup:        ptr.To[int64](User),
						SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
					},
					Affinity:   spread(),
					Containers: []corev1.Container{container(o)},
					Volumes: []corev1.Volume{
						{Name: "work", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
						{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
						{Name: "state-key", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
							SecretName: StateKeySecret, DefaultMode: ptr.To[int32](0o440),
						}}},
					},
				},
			},
		},
	}
}

// spread prefers the replicas on different nodes, so one node's loss
// leaves a replica to take the lead.
func spread() *corev1.Affinity {
	return &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
		PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{
			Weight: 100,
			PodAffinityTerm: corev1.PodAffinityTerm{
				LabelSelector: &metav1.LabelSelector{MatchLabels: selector()},
				TopologyKey:   "kubernetes.io/hostname",
			},
		}},
	}}
}

// container is the controller's container: flags at their defaults but
// --leader-elect, the pod's name and namespace from the downward API,
// its work directory and /tmp on emptyDirs, the state key read-only.
func container(o Options) corev1.Container {
	probe := func(path string) *corev1.Probe {
		return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: intstr.FromString("probes")}}}
	}
	live, ready := probe("/healthz"), probe("/readyz")
	live.InitialDelaySeconds, live.PeriodSeconds = 15, 20
	ready.PeriodSeconds = 10
	return corev1.Container{
		Name:  "controller",
		Image: o.Image,
		Args:  []string{"--leader-elect"},
		Env:   env(o),
		Ports: []corev1.ContainerPort{
			{Name: "metrics", ContainerPort: MetricsPort, Protocol: corev1.ProtocolTCP},
			{Name: "probes", ContainerPort: ProbePort, Protocol: corev1.ProtocolTCP},
		},
		LivenessProbe:  live,
		ReadinessProbe: ready,
		Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("128Mi")},
			Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1Gi")},
		},
		SecurityContext: &corev1.SecurityContext{
			AllowPrivilegeEscalation: ptr.To(false),
			ReadOnlyRootFilesystem:   ptr.To(true),
			RunAsNonRoot:             ptr.To(true),
			Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
			SeccompProfile:           &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
		},
		VolumeMounts: []corev1.VolumeMount{
			{Name: "work", MountPath: "/work"},
			{Name: "tmp", MountPath: "/tmp"},
			{Name: "state-key", MountPath: StateKeyDir, ReadOnly: true},
		},
	}
}

// env is the container's environment: the downward API's pod name and
// namespace (the controller's --identity and --namespace), HOME on the
// work directory, and the API server override, if any.
func env(o Options) []corev1.EnvVar {
	field := func(name, path string) corev1.EnvVar {
		return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: path}}}
	}
	out := []corev1.EnvVar{
		field("POD_NAMESPACE", "metadata.namespace"),
		field("POD_NAME", "metadata.name"),
		{Name: "HOME", Value: "/work"},
	}
	if o.APIServer != "" {
		host, port, _ := o.apiServerHostPort() // checked
		out = append(out,
			corev1.EnvVar{Name: "KUBERNETES_SERVICE_HOST", Value: host},
			corev1.EnvVar{Name: "KUBERNETES_SERVICE_PORT", Value: port},
		)
		if o.APIServerName != "" {
			out = append(out, corev1.EnvVar{Name: controller.APIServerNameEnv, Value: o.APIServerName})
		}
	}
	return out
}

// metricsService exposes the replicas' metrics port.
func metricsService(ns string) *corev1.Service {
	return &corev1.Service{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
		ObjectMeta: meta(MetricsService, ns),
		Spec: corev1.ServiceSpec{
			Selector: selector(),
			Ports:    []corev1.ServicePort{{Name: "metrics", Port: MetricsPort, TargetPort: intstr.FromString("metrics"), Protocol: corev1.ProtocolTCP}},
		},
	}
}
