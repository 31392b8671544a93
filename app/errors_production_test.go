package app

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestOptionErrors is the validation test of the options of issue 33: bad
// input is reported at declaration, naming the component and the field.
func TestOptionErrors(t *testing.T) {
	tests := []struct {
		name  string
		build func(a *App, ctx *Context)
		want  []string
	}{
		{
			name: "labels, selectors and pod labels that are not labels name the key",
			build: func(a *App, ctx *Context) {
				a.Deployment("web", Image("x"), Labels(map[string]string{"bad key": "v"}),
					Selector(map[string]string{"app": "bad value!"}), PodLabels(map[string]string{"": "x"}),
					PodAnnotations(map[string]string{"bad key": "x"}), NodeSelector(map[string]string{"os": "bad value!"}))
			},
			want: []string{
				`deployment "web": labels bad key=v`,
				`deployment "web": selector app=bad value!`,
				`deployment "web": pod labels =x`,
				`deployment "web": pod annotation "bad key"`,
				`deployment "web": node selector os=bad value!`,
			},
		},
		{
			name: "pod labels without the selector and an empty selector are refused",
			build: func(a *App, ctx *Context) {
				a.Deployment("web", Image("x"), Selector(map[string]string{"app": "web"}), PodLabels(map[string]string{"app": "other"}))
				a.StatefulSet("db", Image("x"), Selector(nil))
				a.DaemonSet("agent", Image("x"), PodLabels(map[string]string{"tier": "node"}))
			},
			want: []string{
				`deployment "web": pod labels must include the selector's app=web`,
				`statefulset "db": selector is empty`,
				`daemonset "agent": pod labels must include the selector's app.kubernetes.io/name=agent`,
			},
		},
		{
			name: "container options with bad values name the container field",
			build: func(a *App, ctx *Context) {
				a.Deployment("web", Image("x"), ContainerName("Bad_Name"), ImagePullPolicy("Sometimes"), WorkingDir("srv"),
					SecurityContext(nil), Request("memory", ""), Limit("bad name!", "1"), Limit("cpu", "lots"))
			},
			want: []string{
				`deployment "web": container name "Bad_Name" must be a DNS-1123 label`,
				`deployment "web": image pull policy "Sometimes"`,
				`deployment "web": working directory "srv" must be absolute`,
				`deployment "web": security context is nil`,
				`deployment "web": requests memory "<empty>"`,
				`deployment "web": limits "bad name!"`,
				`deployment "web": limits cpu "lots"`,
			},
		},
		{
			name: "container ports with bad host ports, addresses or names are refused",
			build: func(a *App, ctx *Context) {
				a.Deployment("web", Image("x"), ContainerPort(80).Host(0), NamedPort("http", 81).HostIP("not-an-ip"),
					NamedPort("http", 82), ContainerPort(83).UDP(), ContainerPort(83).SCTP())
			},
			want: []string{
				`deployment "web": host port 0 out of range 1-65535`,
				`deployment "web": host IP "not-an-ip" is not an IP address`,
				`deployment "web": port 83 declared twice`,
			},
		},
		{
			name: "environment references name the variable and the missing key or bad reference",
			build: func(a *App, ctx *Context) {
				cm := a.ConfigMap("settings", Data("A", "1"))
				a.Deployment("web", Image("x"), EnvFromConfig("B", cm, "b").Required(), EnvFromConfig("C", ConfigMapRef("Bad_Name"), "c"),
					EnvFromSecret("D", SecretRef("bad/name"), "d").Optional(), EnvFromField("E", ""), EnvFromResource("F", ""),
					EnvFromAll(a.Service(a.Deployment("other", Image("x"), Ports(80)))), EnvFromAll(SecretRef("Bad_Name")).Prefix("X_"))
			},
			want: []string{
				`deployment "web": env "B": configmap "settings" has no key "b"`,
				`deployment "web": config map "Bad_Name": name must be a DNS-1123 subdomain`,
				`deployment "web": secret "bad/name": name must be a DNS-1123 subdomain`,
				`deployment "web": env "E": field path is empty`,
				`deployment "web": env "F": resource is empty`,
				`deployment "web": env from all: want a *app.ConfigMap or *app.Secret, got *app.Service`,
				`deployment "web": secret "Bad_Name": name must be a DNS-1123 subdomain`,
			},
		},
		{
			name: "scheduling and pod options with bad values name the field",
			build: func(a *App, ctx *Context) {
				a.Deployment("web", Image("x"), Affinity(nil), PodSecurity(nil), TerminationGrace(-1), PriorityClass("Bad_Name"),
					DNSPolicy("Everywhere"), RestartPolicy("Sometimes"), ImagePullSecrets("Bad_Name"), RunAs(ServiceAccountRef("Bad_Name")),
					Tolerations(corev1.Toleration{Key: "k", Operator: "Maybe"}, corev1.Toleration{Operator: corev1.TolerationOpEqual}),
					TopologySpread(corev1.TopologySpreadConstraint{MaxSkew: 0, TopologyKey: "zone"}))
			},
			want: []string{
				`deployment "web": affinity is nil`,
				`deployment "web": pod security context is nil`,
				`deployment "web": termination grace -1 must not be negative`,
				`deployment "web": priority class "Bad_Name" must be a DNS-1123 subdomain`,
				`deployment "web": dns policy "Everywhere"`,
				`deployment "web": restart policy "Sometimes"`,
				`deployment "web": image pull secret "Bad_Name"`,
				`deployment "web": service account "Bad_Name": name must be a DNS-1123 subdomain`,
				`deployment "web": toleration "k": operator "Maybe" is not Exists or Equal`,
				`deployment "web": toleration "": a toleration without a key must be an Exists one`,
				`deployment "web": topology spread needs a topology key and a max skew of at least 1`,
			},
		},
		{
			name: "pod options inside a sidecar or init container name the container",
			build: func(a *App, ctx *Context) {
				a.Deployment("web", Image("x"), Sidecar("proxy", Image("y"), HostNetwork(), Replicas(2), AutomountToken(false),
					Annotation("k", "v"), Sidecar("nested", Image("z"))), InitContainer("Bad_Init", Image("y"), HostPID(), Selector(map[string]string{"a": "b"})))
			},
			want: []string{
				`deployment "web": sidecar "proxy": HostNetwork applies to the pod, not to one container`,
				`deployment "web": sidecar "proxy": Replicas applies to the pod, not to one container`,
				`deployment "web": sidecar "proxy": AutomountToken applies to the pod, not to one container`,
				`deployment "web": sidecar "proxy": workload options (DependsOn, Annotation, NoWait, Labels, Zero, Edit) apply to the workload, not to one container`,
				`deployment "web": sidecar "proxy": Sidecar applies to the pod, not to one container`,
				`deployment "web": init container "Bad_Init": name must be a DNS-1123 label`,
				`deployment "web": init container "Bad_Init": HostPID applies to the pod, not to one container`,
				`deployment "web": init container "Bad_Init": Selector applies to the pod, not to one container`,
			},
		},
		{
			name: "a sidecar without an image or with a taken name is refused",
			build: func(a *App, ctx *Context) {
				a.Deployment("web", Image("x"), Sidecar("proxy"), InitContainer("web", Image("y")))
			},
			want: []string{`deployment "web": sidecar "proxy": image is required (app.Image)`, `deployment "web": container "web" declared twice`},
		},
		{
			name: "volumes with bad names, sources or settings name the volume",
			build: func(a *App, ctx *Context) {
				a.Deployment("web", Image("x"), ConfigVolume("c", nil), SecretVolume("s", SecretRef("Bad_Name")), ClaimVolume("Bad_Vol", ClaimRef("data")),
					EmptyDirVolume("e").Item("k", "p").Mode(0o1777).SizeLimit("lots").Type(corev1.HostPathFile), HostPathVolume("h", "var").Memory(),
					ConfigVolume("i", ConfigMapRef("cm")).Item("k", "../escape").ReadOnlyClaim(), EmptyDirVolume("e2").Optional(),
					EmptyDirVolume("dup"), EmptyDirVolume("dup"), Volume("ok", corev1.VolumeSource{}))
			},
			want: []string{
				`deployment "web": volume "c": config map is nil`,
				`deployment "web": secret "Bad_Name": name must be a DNS-1123 subdomain`,
				`deployment "web": volume "Bad_Vol": name must be a DNS-1123 label`,
				`deployment "web": volume "e": Item applies to a ConfigMap or Secret volume`,
				`deployment "web": volume "e": mode 01777 is not in 0-0777`,
				`deployment "web": volume "e": size limit "lots"`,
				`deployment "web": volume "h": host path "var" must be absolute`,
				`deployment "web": volume "h": Memory applies to an empty-dir volume`,
				`deployment "web": volume "e": Type applies to a host-path volume`,
				`deployment "web": volume "i": item "k": needs a key and a relative path inside the volume`,
				`deployment "web": volume "i": ReadOnlyClaim applies to a claim volume`,
				`deployment "web": volume "e2": Optional applies to a ConfigMap or Secret volume`,
				`deployment "web": volume "dup" declared twice`,
			},
		},
		{
			name: "mounts of missing volumes or with bad sub paths and propagation name the path",
			build: func(a *App, ctx *Context) {
				a.Deployment("web", Image("x"), EmptyDirVolume("tmp"), Mount("nowhere", "/a"), Mount("tmp", "b"),
					Mount("tmp", "/c").SubPath("../up"), Mount("tmp", "/d").Propagation("Sideways"), Mount("tmp", "/e").ReadWrite(), Mount("tmp", "/e").ReadOnly())
			},
			want: []string{
				`deployment "web": mount "/a": no volume "nowhere"`,
				`deployment "web": mount path "b" must be absolute`,
				`deployment "web": mount "/c": sub path "../up" must be relative and stay inside the volume`,
				`deployment "web": mount "/d": propagation "Sideways"`,
				`deployment "web": mount path "/e" used twice`,
			},
		},
		{
			name: "probes and hooks with bad settings name the probe",
			build: func(a *App, ctx *Context) {
				a.Deployment("web", Image("x"), Ready(HTTPGetNamed("/", "")), Live(TCPNamed("")), Startup(GRPC(0)),
					Sidecar("s", Image("y"), Ready(TCP(80).Timeout(0)), Live(Exec("true").FailureThreshold(0)), Startup(HTTPGet("/", 80).SuccessThreshold(0))),
					InitContainer("i", Image("y"), Ready(TCP(80).HTTPS()), Live(Exec("x").Header("a", "b")), Startup(TCP(80).Every(0).After(-1))),
					PreStop(GRPC(80)), PostStart(Exec("x").After(3)))
				a.Deployment("other", Image("x"), PreStop(Probe{}), Startup(Probe{}), Ready(TCP(81).HTTP()))
			},
			want: []string{
				`deployment "web": readiness probe: port name is empty`,
				`deployment "web": liveness probe: port name is empty`,
				`deployment "web": startup probe: port 0 out of range 1-65535`,
				`deployment "web": sidecar "s": readiness probe: timeout must be at least 1 second`,
				`deployment "web": sidecar "s": liveness probe: failure threshold must be at least 1`,
				`deployment "web": sidecar "s": startup probe: success threshold must be at least 1`,
				`deployment "web": init container "i": readiness probe: a scheme applies to an HTTP GET probe`,
				`deployment "web": init container "i": liveness probe: a header applies to an HTTP GET probe`,
				`deployment "web": init container "i": startup probe: period must be at least 1 second`,
				`deployment "other": readiness probe: a scheme applies to an HTTP GET probe`,
				`deployment "web": pre-stop hook cannot be a gRPC check`,
				`deployment "web": post-start hook takes no timing`,
				`deployment "other": pre-stop hook probe is empty`,
				`deployment "other": startup probe is empty`,
			},
		},
		{
			name: "kind-only options on another kind name the kinds they apply to",
			build: func(a *App, ctx *Context) {
				a.StatefulSet("db", Image("x"), Recreate(), Completions(1))
				a.Deployment("web", Image("x"), GoverningService("web"), Concurrency(batchv1.AllowConcurrent), JobHistory(1, 1), TimeZone("UTC"), JobLabels(nil))
				a.DaemonSet("agent", Image("x"), Replicas(2), Parallelism(1), TTLAfterFinished(1), ActiveDeadline(1), ClaimTemplate("d", "/d", Storage("1Gi")))
			},
			want: []string{
				`statefulset "db": Recreate applies only to a Deployment`,
				`statefulset "db": Completions applies only to a Job or CronJob`,
				`deployment "web": GoverningService applies only to a StatefulSet`,
				`deployment "web": Concurrency applies only to a CronJob`,
				`deployment "web": JobHistory applies only to a CronJob`,
				`deployment "web": TimeZone applies only to a CronJob`,
				`deployment "web": JobLabels applies only to a CronJob`,
				`daemonset "agent": Replicas applies only to a Deployment or StatefulSet`,
				`daemonset "agent": Parallelism applies only to a Job or CronJob`,
				`daemonset "agent": TTLAfterFinished applies only to a Job or CronJob`,
				`daemonset "agent": ActiveDeadline applies only to a Job or CronJob`,
				`daemonset "agent": ClaimTemplate applies only to a StatefulSet`,
			},
		},
		{
			name: "job and cronjob options with bad values name the field",
			build: func(a *App, ctx *Context) {
				a.Job("migrate", Image("x"), Completions(-1), Parallelism(-1), TTLAfterFinished(-1), ActiveDeadline(-1), RestartPolicy(corev1.RestartPolicyAlways))
				a.CronJob("report", "* * * * *", Image("x"), Concurrency("Sometimes"), JobHistory(-1, 0), TimeZone(""),
					JobLabels(map[string]string{"bad key": "v"}), GoverningService("Bad_Name"))
				a.StatefulSet("db", Image("x"), GoverningService("Bad_Name"), ClaimTemplate("d", "", Storage("1Gi")), ClaimTemplate("d", "", Storage("1Gi")))
			},
			want: []string{
				`job "migrate": completions -1 must not be negative`,
				`job "migrate": parallelism -1 must not be negative`,
				`job "migrate": ttl after finished -1 must not be negative`,
				`job "migrate": active deadline -1 must not be negative`,
				`job "migrate": restart policy Always is not allowed for a Job's pods`,
				`cronjob "report": concurrency "Sometimes" is not Allow, Forbid or Replace`,
				`cronjob "report": successful job history -1 must not be negative`,
				`cronjob "report": time zone is empty`,
				`cronjob "report": job labels bad key=v`,
				`statefulset "db": governing service "Bad_Name" must be a DNS-1123 label`,
				`statefulset "db": claim template "d" declared twice`,
			},
		},
		{
			name: "service ports and options with bad values name the service and port",
			build: func(a *App, ctx *Context) {
				web := a.Deployment("web", Image("x"), NamedPort("http", 8080))
				a.Service(web, Port(80).To(0), Port(81).ToPort(""), Port(82).Named("Bad_Name"), Port(83).Protocol("ICMP"),
					Port(84).NodePort(70000), Port(85).AppProtocol("bad protocol!"), Port(86).ToPort("grpc"),
					SessionAffinity("Sticky"), ExternalTrafficPolicy("Nearby"))
				a.Service(web, ServiceName("Bad_Name"), SelectBy(map[string]string{"app": "other"}))
				a.Service(web, ServiceName("empty"), SelectBy(nil))
			},
			want: []string{
				`service "web": port 0 out of range 1-65535`,
				`service "web": port 81: target port name is empty`,
				`service "web": port 82: name "Bad_Name" must be a DNS-1123 label`,
				`service "web": port 83: protocol "ICMP" is not TCP, UDP or SCTP`,
				`service "web": node port 70000 out of range 1-65535`,
				`service "web": port 85: app protocol "bad protocol!"`,
				`service "web": target port "grpc" is not declared by deployment "web"`,
				`service "web": session affinity "Sticky" is not ClientIP or None`,
				`service "web": external traffic policy "Nearby" is not Local or Cluster`,
				`service "Bad_Name": name must be a DNS-1123 label`,
				`service "Bad_Name": selector app=other does not select the pods of deployment "web"`,
				`service "empty": SelectBy needs at least one label`,
			},
		},
		{
			name: "a service for pods of others needs ports and takes no SelectBy",
			build: func(a *App, ctx *Context) {
				a.ServiceSelecting("prometheus", map[string]string{"app": "prometheus"})
				a.ServiceSelecting("alertmanager", nil, Port(9093), SelectBy(map[string]string{"a": "b"}))
			},
			want: []string{
				`service "prometheus": no ports (use app.Port or app.PortTo)`,
				`service "alertmanager": SelectBy applies to a Service declared for a workload`,
			},
		},
		{
			name: "an http route with bad gateways, hosts, matches or backends names the rule",
			build: func(a *App, ctx *Context) {
				web := a.Service(a.Deployment("web", Image("x"), Ports(80)))
				a.HTTPRoute("shop", Gateway("Bad_Name"), Gateway("public").Namespace("Bad_NS").Section("Bad Section"),
					Hostnames("bad host!"), Rule(PathPrefix("api"), Backend(web, 81)), Rule(ExactPath("/")), Rule(Backend(nil, 80)))
				a.HTTPRoute("empty")
			},
			want: []string{
				`httproute "shop": gateway "Bad_Name": name must be a DNS-1123 subdomain`,
				`httproute "shop": gateway namespace "Bad_NS" must be a DNS-1123 label`,
				`httproute "shop": hostname "bad host!" must be a DNS name`,
				`httproute "shop": rule 1: path "api" must start with /`,
				`httproute "shop": rule 1: backend: service "web" has no port 81`,
				`httproute "shop": rule 2: no backends (use app.Backend)`,
				`httproute "shop": rule 3: backend: service is nil`,
				`httproute "empty": no gateway (use app.Gateway)`,
				`httproute "empty": no rules (use app.Rule)`,
			},
		},
		{
			name: "zero paths and edits that do not fit the object name the path or the types",
			build: func(a *App, ctx *Context) {
				a.Deployment("web", Image("x"), Replicas(2), DNSPolicy(corev1.DNSClusterFirst), Zero("spec.replicas", "spec.template.spec.dnsPolicy", "spec.nope", "spec.template.spec.containers[3].stdin", "spec.selector", "spec[0", ""),
					Edit(func(j *batchv1.Job) {}), Edit[appsv1.Deployment](nil))
				a.Object(&schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "high"}, Value: 1}, Zero("value"))
				a.ServiceAccount("sa", Zero("automountServiceAccountToken"))
			},
			want: []string{
				`deployment "web": Zero "spec.replicas": a pointer field (*int32) keeps its zero value without Zero`,
				`deployment "web": Zero "spec.nope": no field "nope" in v1.DeploymentSpec`,
				`deployment "web": Zero "spec.template.spec.containers[3].stdin": no list item [3] there`,
				`deployment "web": Zero "spec.selector": not a bool, number or string field but *v1.LabelSelector`,
				`deployment "web": Zero "spec.template.spec.dnsPolicy": the field is set to ClusterFirst`,
				`deployment "web": Zero "spec[0": bad list index`,
				`deployment "web": Zero "": path is empty`,
				`deployment "web": Edit takes *v1.Job, but the builder makes *v1.Deployment`,
				`deployment "web": Edit function is nil`,
				`priorityclass "high": Zero "value": the field is set to 1`,
				`serviceaccount "sa": Zero "automountServiceAccountToken": a pointer field (*bool) keeps its zero value without Zero`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := New("demo")
			tt.build(a, testContext())
			c, err := a.Composition(testContext())
			if err == nil {
				t.Fatalf("Composition() = %v, want an error", c)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Composition() error =\n%v\nwant it to contain %q", err, w)
				}
			}
		})
	}
}
