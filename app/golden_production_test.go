package app

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// TestGoldenProduction is the golden test of the options production
// workloads need (issue 33): each option below appears in one of these
// compositions, whose Documents are kept under testdata/.
func TestGoldenProduction(t *testing.T) {
	tests := []struct {
		name   string
		golden string
		build  func(a *App, ctx *Context)
	}{
		{name: "a deployment states its labels, pods, containers, volumes, probes, hooks and scheduling", golden: "production_deployment", build: productionDeployment},
		{name: "a daemonset runs on the host network with host paths and tolerations", golden: "daemonset", build: daemonSet},
		{name: "jobs and cronjobs take completions, deadlines, history, time zone and their own labels", golden: "job_options", build: jobsWithOptions},
		{name: "services name their ports, forward by name, select a subset and serve pods of others", golden: "service_ports", build: servicePorts},
		{name: "an http route attaches to a gateway and sends matches to services", golden: "httproute", build: httpRoute},
		{name: "typed objects and service accounts take labels, zero values, annotations and edits", golden: "objects_options", build: objectOptions},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := New("demo")
			ctx := testContext()
			tt.build(a, ctx)
			c, err := a.Composition(ctx)
			if err != nil {
				t.Fatalf("Composition() error = %v", err)
			}
			checkGolden(t, tt.golden, c)
		})
	}
}

// productionDeployment uses every pod and container option on one
// Deployment with a sidecar and an init container.
func productionDeployment(a *App, ctx *Context) {
	cm := a.ConfigMap("settings", Data("LEVEL", "info"))
	creds := a.Secret("creds", Generated("password", 16))
	labels := map[string]string{"app": "web", "tier": "front"}
	a.Deployment("web",
		Labels(labels),
		Selector(map[string]string{"app": "web"}),
		PodLabels(labels),
		PodAnnotations(map[string]string{"example.com/scrape": "true"}),
		ContainerName("server"),
		Image(ctx.Image("web")),
		ImagePullPolicy(corev1.PullIfNotPresent),
		WorkingDir("/srv"),
		NamedPort("http", 8080),
		NamedPort("https", 8443).TCP().Host(443).HostIP("127.0.0.1"),
		ContainerPort(9000).SCTP(),
		EnvFromConfig("LEVEL", cm, "LEVEL"),
		EnvFromConfig("MAYBE", ConfigMapRef("extra"), "maybe").Optional(),
		EnvFromSecret("PASSWORD", creds, "password").Required(),
		EnvFromField("POD_IP", "status.podIP"),
		EnvFromResource("MEMORY", "limits.memory"),
		EnvFromAll(cm).Prefix("CFG_").Optional(),
		EnvFromAll(SecretRef("tokens")),
		Requests("100m", "64Mi"),
		Request("ephemeral-storage", "1Gi"),
		Limit("memory", "128Mi"),
		SecurityContext(&corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false), Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}}),
		Ready(HTTPGetNamed("/ready", "http").HTTPS().Header("X-Probe", "1").Timeout(2).FailureThreshold(5).SuccessThreshold(2)),
		Live(GRPC(9000)),
		Startup(TCPNamed("http").Every(5)),
		PreStop(Exec("sleep", "5")),
		PostStart(HTTPGet("/started", 8080).HTTP()),
		ConfigVolume("config", cm).Item("LEVEL", "level.txt").Mode(0o440).Optional(),
		SecretVolume("tls", SecretRef("web-tls")).Item("tls.crt", "cert.pem"),
		ClaimVolume("data", ClaimRef("web-data")).ReadOnlyClaim(),
		EmptyDirVolume("cache").Memory().SizeLimit("256Mi"),
		HostPathVolume("logs", "/var/log").Type(corev1.HostPathDirectory),
		Volume("token", corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{{
			ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token", Audience: "web"},
		}}}}),
		Mount("config", "/etc/web").ReadOnly(),
		Mount("cache", "/cache").ReadWrite(),
		Mount("data", "/data").SubPath("web"),
		Mount("logs", "/logs").Propagation(corev1.MountPropagationHostToContainer),
		Sidecar("proxy", Image(ctx.Image("web")), NamedPort("metrics", 9113), Mount("tls", "/tls").ReadOnly(), Ready(TCPNamed("metrics"))),
		InitContainer("migrate", Image(ctx.Image("db")), Command("migrate"), Mount("token", "/var/run/token")),
		NodeSelector(map[string]string{"kubernetes.io/os": "linux"}),
		Affinity(&corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{
			Weight: 100, PodAffinityTerm: corev1.PodAffinityTerm{TopologyKey: "kubernetes.io/hostname", LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
		}}}}),
		Tolerations(corev1.Toleration{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "web", Effect: corev1.TaintEffectNoSchedule}),
		TopologySpread(corev1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone", WhenUnsatisfiable: corev1.ScheduleAnyway}),
		PodSecurity(&corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true), FSGroup: ptr.To[int64](2000)}),
		TerminationGrace(45),
		PriorityClass("high"),
		DNSPolicy(corev1.DNSClusterFirst),
		RestartPolicy(corev1.RestartPolicyAlways),
		ImagePullSecrets("registry"),
		AutomountToken(false),
		RunAs(ServiceAccountRef("builder")),
		Recreate(),
		Zero("spec.minReadySeconds", "spec.template.spec.containers[0].stdin"),
		Edit(func(d *appsv1.Deployment) { d.Spec.RevisionHistoryLimit = ptr.To[int32](3) }),
	)
}

// daemonSet declares a node agent and a Service for it.
func daemonSet(a *App, ctx *Context) {
	agent := a.DaemonSet("agent",
		Image(ctx.Image("web")),
		NamedPort("metrics", 9100).Host(9100),
		HostNetwork(),
		HostPID(),
		DNSPolicy(corev1.DNSClusterFirstWithHostNet),
		HostPathVolume("root", "/"),
		Mount("root", "/host").ReadOnly().Propagation(corev1.MountPropagationHostToContainer),
		Tolerations(corev1.Toleration{Operator: corev1.TolerationOpExists}),
	)
	a.Service(agent, Headless())
}

// jobsWithOptions declares a Job and a CronJob with every job option.
func jobsWithOptions(a *App, ctx *Context) {
	a.Job("migrate", Image(ctx.Image("db")), Command("migrate"),
		Completions(3), Parallelism(2), TTLAfterFinished(0), ActiveDeadline(600), BackoffLimit(4),
		RestartPolicy(corev1.RestartPolicyOnFailure), PodLabels(nil), Labels(map[string]string{"app": "migrate"}))
	a.CronJob("report", "0 3 * * *", Image(ctx.Image("db")), Command("report"),
		Concurrency(""), JobHistory(5, 2), TimeZone("Europe/Madrid"), JobLabels(nil), Labels(nil),
		Selector(map[string]string{"job": "report"}))
	a.CronJob("cleanup", "*/5 * * * *", Image(ctx.Image("db")), Concurrency(batchv1.ReplaceConcurrent))
}

// servicePorts declares Services with every port and selection option,
// and a StatefulSet with a governing Service and an unmounted template.
func servicePorts(a *App, ctx *Context) {
	web := a.Deployment("web", Image(ctx.Image("web")), Selector(map[string]string{"app": "web"}),
		PodLabels(map[string]string{"app": "web", "version": "v1"}), NamedPort("http", 8080), UDPPort(53))
	a.Service(web, Labels(map[string]string{"app": "web"}),
		Port(80).To(8080).Named("").AppProtocol("http"), Port(53).Protocol(corev1.ProtocolUDP))
	a.Service(web, ServiceName("web-external"), SelectBy(map[string]string{"app": "web"}),
		ServiceType(corev1.ServiceTypeNodePort), Port(80).ToPort("http").NodePort(30080),
		SessionAffinity(corev1.ServiceAffinityClientIP), ExternalTrafficPolicy(corev1.ServiceExternalTrafficPolicyLocal))
	a.ServiceSelecting("prometheus", map[string]string{"app.kubernetes.io/name": "prometheus"},
		Port(9090).ToPort("web").Named("web"), Port(8080).NoTarget().Named("reloader").Protocol(corev1.ProtocolTCP))
	db := a.StatefulSet("db", Image(ctx.Image("db")), GoverningService("db-headless"), NamedPort("postgres", 5432),
		ClaimTemplate("data", "", Storage("1Gi"), Labels(nil)), Mount("data", "/var/lib/postgresql/data"))
	a.Service(db, ServiceName("db-headless"), Headless())
}

// httpRoute declares an HTTPRoute to two Services.
func httpRoute(a *App, ctx *Context) {
	web := a.Service(a.Deployment("web", Image(ctx.Image("web")), Ports(80)))
	api := a.Service(a.Deployment("api", Image(ctx.Image("web")), Ports(8080)))
	a.HTTPRoute("shop",
		Gateway("public").Namespace("gateways").Section("https"),
		Hostnames("shop.example.com", "*.shop.example.com"),
		Rule(PathPrefix("/api"), Backend(api, 8080)),
		Rule(ExactPath("/"), PathPrefix("/static"), Backend(web, 80)),
		Rule(Backend(web, 80)),
	)
}

// objectOptions declares a typed object with options, a service account
// with its options and a configmap with an edit.
func objectOptions(a *App, ctx *Context) {
	a.Object(&schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "high"}, Value: 1000},
		Zero("globalDefault"), Labels(map[string]string{"tier": "system"}), Annotation("example.com/owner", "ops"),
		DependsOn(a.ServiceAccount("builder", AutomountToken(false), Labels(map[string]string{"app": "builder"}),
			Annotation("example.com/team", "ci"))))
	a.ConfigMap("settings", Data("a", "1"), Edit(func(cm *corev1.ConfigMap) { cm.Immutable = ptr.To(true) }))
}
