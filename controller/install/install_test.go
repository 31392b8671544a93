package install

import (
	"bytes"
	"encoding/base64"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/pynenc/piceli/controller"
	"github.com/pynenc/piceli/internal/render"
	"github.com/pynenc/piceli/internal/signer"
	"github.com/pynenc/piceli/object"
	"github.com/pynenc/piceli/plan"
	"github.com/pynenc/piceli/publish"
	"github.com/pynenc/piceli/refusal"
	"github.com/pynenc/piceli/release"
	"github.com/pynenc/piceli/wire"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// testImage is a pinned image reference; no test pulls it.
var testImage = "piceli.local/piceli/controller@sha256:" + strings.Repeat("ab", 32)

func testOptions() Options {
	return Options{Kubeconfig: "kubeconfig", Context: "kwok-test", Image: testImage}
}

func mustContent(t *testing.T, o Options) *publish.Content {
	t.Helper()
	c, err := Content(o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// find returns the manifest of kind and name in c, converted into out.
func find(t *testing.T, c *publish.Content, kind, name string, out any) *unstructured.Unstructured {
	t.Helper()
	for _, u := range c.Manifests {
		if u.GetKind() == kind && u.GetName() == name {
			if out != nil {
				if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, out); err != nil {
					t.Fatalf("%s/%s: %v", kind, name, err)
				}
			}
			return u
		}
	}
	t.Fatalf("the controller's release has no %s/%s", kind, name)
	return nil
}

// The objects as they go into the artifact, pinned in a golden file: a
// change to any of them shows in review.
func TestContentGolden(t *testing.T) {
	data, err := render.Encode(mustContent(t, testOptions()).Manifests, render.YAML)
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "install.yaml")
	if *update {
		if err := os.WriteFile(golden, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./controller/install -run TestContentGolden -args -update)", err)
	}
	if !bytes.Equal(data, want) {
		t.Errorf("the controller's objects differ from %s (rerun with -args -update and review the diff):\n%s", golden, data)
	}
}

// Two replicas with leader election, non-root, read-only root filesystem,
// no privilege escalation, no capabilities, RuntimeDefault seccomp, the
// work directory on an emptyDir, the state key read-only where the
// controller's --state-key-file expects it, probes on 8081, resources.
func TestDeploymentRunsLockedDown(t *testing.T) {
	var d appsv1.Deployment
	find(t, mustContent(t, testOptions()), "Deployment", Name, &d)
	if d.Namespace != DefaultNamespace || d.Spec.Replicas == nil || *d.Spec.Replicas != 2 {
		t.Errorf("Deployment %s/%s replicas %v, want 2 in %s", d.Namespace, d.Name, d.Spec.Replicas, DefaultNamespace)
	}
	pod := d.Spec.Template.Spec
	if pod.ServiceAccountName != Name {
		t.Errorf("runs as ServiceAccount %q, want %q", pod.ServiceAccountName, Name)
	}
	psc := pod.SecurityContext
	if psc == nil || !isTrue(psc.RunAsNonRoot) || psc.RunAsUser == nil || *psc.RunAsUser == 0 || psc.SeccompProfile == nil || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Errorf("pod security context %+v: want non-root, a non-zero uid and RuntimeDefault seccomp", psc)
	}
	if len(pod.Containers) != 1 || len(pod.InitContainers) != 0 {
		t.Fatalf("%d containers and %d init containers, want one container", len(pod.Containers), len(pod.InitContainers))
	}
	c := pod.Containers[0]
	if c.Image != testImage || !slices.Contains(c.Args, "--leader-elect") {
		t.Errorf("container image %q args %v: want %q with --leader-elect", c.Image, c.Args, testImage)
	}
	sc := c.SecurityContext
	switch {
	case sc == nil:
		t.Fatal("the container has no security context")
	case !isTrue(sc.ReadOnlyRootFilesystem), sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation, !isTrue(sc.RunAsNonRoot),
		sc.Privileged != nil && *sc.Privileged, sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(sc.Capabilities.Add) > 0:
		t.Errorf("container security context %+v: want a read-only root, no escalation, non-root, every capability dropped", sc)
	}
	mounts := map[string]corev1.VolumeMount{}
	for _, m := range c.VolumeMounts {
		mounts[m.MountPath] = m
	}
	volumes := map[string]corev1.Volume{}
	for _, v := range pod.Volumes {
		volumes[v.Name] = v
	}
	if m, ok := mounts["/work"]; !ok || volumes[m.Name].EmptyDir == nil {
		t.Errorf("/work is not an emptyDir: %+v", mounts)
	}
	key, ok := mounts[StateKeyDir]
	if !ok || !key.ReadOnly || volumes[key.Name].Secret == nil || volumes[key.Name].Secret.SecretName != StateKeySecret {
		t.Errorf("%s: %+v, want Secret %s mounted read-only", StateKeyDir, key, StateKeySecret)
	}
	if m := volumes[key.Name].Secret.DefaultMode; m == nil || *m&0o007 != 0 {
		t.Errorf("the state key is mounted with mode %v: others may read it", m)
	}
	for probe, path := range map[*corev1.Probe]string{c.LivenessProbe: "/healthz", c.ReadinessProbe: "/readyz"} {
		if probe == nil || probe.HTTPGet == nil || probe.HTTPGet.Path != path || probe.HTTPGet.Port.String() != "probes" {
			t.Errorf("probe %+v, want GET %s on port probes", probe, path)
		}
	}
	ports := map[string]int32{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
	}
	if ports["probes"] != ProbePort || ports["metrics"] != MetricsPort {
		t.Errorf("ports %v, want probes %d and metrics %d", ports, ProbePort, MetricsPort)
	}
	if c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero() || c.Resources.Limits.Memory().IsZero() {
		t.Errorf("resources %+v: want CPU and memory requests and a memory limit", c.Resources)
	}
	env := envOf(c)
	if env["POD_NAMESPACE"] != "fieldRef:metadata.namespace" || env["POD_NAME"] != "fieldRef:metadata.name" {
		t.Errorf("env %v: want POD_NAMESPACE and POD_NAME from the downward API", env)
	}
	for _, v := range []string{"KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT", controller.APIServerNameEnv} {
		if _, set := env[v]; set {
			t.Errorf("%s is set without an API server override", v)
		}
	}
	var svc corev1.Service
	find(t, mustContent(t, testOptions()), "Service", MetricsService, &svc)
	if len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].Port != MetricsPort || svc.Spec.Selector["app.kubernetes.io/name"] != Name {
		t.Errorf("metrics Service %+v", svc.Spec)
	}
}

func isTrue(b *bool) bool { return b != nil && *b }

func envOf(c corev1.Container) map[string]string {
	out := map[string]string{}
	for _, e := range c.Env {
		switch {
		case e.ValueFrom != nil && e.ValueFrom.FieldRef != nil:
			out[e.Name] = "fieldRef:" + e.ValueFrom.FieldRef.FieldPath
		default:
			out[e.Name] = e.Value
		}
	}
	return out
}

// With an API server override the pods reach it there, checking its
// certificate against the name given.
func TestAPIServerOverride(t *testing.T) {
	o := testOptions()
	o.APIServer, o.APIServerName = "https://127.0.0.1:6443", "kubernetes.default.svc"
	var d appsv1.Deployment
	find(t, mustContent(t, o), "Deployment", Name, &d)
	env := envOf(d.Spec.Template.Spec.Containers[0])
	if env["KUBERNETES_SERVICE_HOST"] != "127.0.0.1" || env["KUBERNETES_SERVICE_PORT"] != "6443" || env[controller.APIServerNameEnv] != "kubernetes.default.svc" {
		t.Errorf("env %v: want the API server 127.0.0.1:6443 named kubernetes.default.svc", env)
	}
}

// allows reports whether rules grant verb on resource of group, as RBAC
// evaluates a rule without resource names (a rule limited to names grants
// the verb on those objects only, which this counts as not granted).
func allows(rules []rbacv1.PolicyRule, group, resource, verb string) bool {
	has := func(list []string, v string) bool { return slices.Contains(list, v) || slices.Contains(list, "*") }
	for _, r := range rules {
		if has(r.APIGroups, group) && has(r.Resources, resource) && has(r.Verbs, verb) && len(r.ResourceNames) == 0 {
			return true
		}
	}
	return false
}

// The controller's own roles cannot write an arbitrary namespaced object,
// read a Secret or grant anything: what a Release applies, the controller
// writes only through a namespace's deployer RoleBinding.
func TestControllerRolesCannotWriteWhatReleasesApply(t *testing.T) {
	c := mustContent(t, testOptions())
	var cr rbacv1.ClusterRole
	var role rbacv1.Role
	find(t, c, "ClusterRole", Name, &cr)
	find(t, c, "Role", Name, &role)
	if !slices.EqualFunc(cr.Rules, ControllerRules(), ruleEqual) || !slices.EqualFunc(role.Rules, NamespaceRules(), ruleEqual) {
		t.Fatalf("the release's roles are not ControllerRules and NamespaceRules")
	}
	for _, rules := range [][]rbacv1.PolicyRule{cr.Rules, role.Rules} {
		for _, r := range rules {
			for _, list := range [][]string{r.APIGroups, r.Resources, r.Verbs} {
				if slices.Contains(list, "*") {
					t.Errorf("rule %+v has a wildcard", r)
				}
			}
		}
		for _, w := range []struct{ group, resource string }{
			{"apps", "deployments"}, {"", "configmaps"}, {"", "services"}, {"", "pods"}, {"", "secrets"},
			{"rbac.authorization.k8s.io", "rolebindings"}, {"rbac.authorization.k8s.io", "roles"},
			{"rbac.authorization.k8s.io", "clusterrolebindings"}, {"", "namespaces"}, {"apiextensions.k8s.io", "customresourcedefinitions"},
			{"batch", "jobs"}, {"networking.k8s.io", "ingresses"}, {"", "serviceaccounts"},
		} {
			for _, verb := range []string{"create", "update", "patch", "delete", "escalate", "bind", "impersonate"} {
				if allows(rules, w.group, w.resource, verb) {
					t.Errorf("the controller's own role may %s %s.%s", verb, w.resource, w.group)
				}
			}
		}
		if allows(rules, "", "secrets", "get") || allows(rules, "", "secrets", "list") {
			t.Error("the controller's own role may read Secrets")
		}
	}
	for _, want := range []struct{ group, resource, verb string }{
		{"piceli.dev", "releases", "watch"}, {"piceli.dev", "releases", "update"}, {"piceli.dev", "releases/status", "update"},
		{"", "events", "create"}, {"rbac.authorization.k8s.io", "rolebindings", "list"},
	} {
		if !allows(cr.Rules, want.group, want.resource, want.verb) {
			t.Errorf("the controller may not %s %s.%s", want.verb, want.resource, want.group)
		}
	}
	if !allows(role.Rules, "coordination.k8s.io", "leases", "update") {
		t.Error("the controller may not update its leader-election Lease")
	}
}

func ruleEqual(a, b rbacv1.PolicyRule) bool {
	return slices.Equal(a.APIGroups, b.APIGroups) && slices.Equal(a.Resources, b.Resources) && slices.Equal(a.Verbs, b.Verbs) && slices.Equal(a.ResourceNames, b.ResourceNames)
}

// The deployer role is declared with DeployerRules and bound by nothing
// the install creates: only a namespace's owner binds it.
func TestDeployerRoleIsDeclaredButNotBound(t *testing.T) {
	c := mustContent(t, testOptions())
	var deployer rbacv1.ClusterRole
	find(t, c, "ClusterRole", controller.DeployerRole, &deployer)
	if !slices.EqualFunc(deployer.Rules, DeployerRules(), ruleEqual) {
		t.Errorf("ClusterRole %s rules %v, want DeployerRules", controller.DeployerRole, deployer.Rules)
	}
	for _, verb := range []string{"escalate", "bind", "impersonate"} {
		if allows(deployer.Rules, "rbac.authorization.k8s.io", "roles", verb) || allows(deployer.Rules, "", "users", verb) {
			t.Errorf("the deployer role may %s", verb)
		}
	}
	if !allows(deployer.Rules, "apps", "deployments", "create") || !allows(deployer.Rules, "", "secrets", "get") || !allows(deployer.Rules, "coordination.k8s.io", "leases", "update") {
		t.Error("the deployer role lacks what the engine needs in a target namespace")
	}
	bindings := 0
	for _, u := range c.Manifests {
		if u.GetKind() != "RoleBinding" && u.GetKind() != "ClusterRoleBinding" {
			continue
		}
		bindings++
		var b rbacv1.RoleBinding
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &b); err != nil {
			t.Fatal(err)
		}
		if b.RoleRef.Name == controller.DeployerRole {
			t.Errorf("%s/%s binds the deployer role", u.GetKind(), u.GetName())
		}
	}
	if bindings != 2 {
		t.Errorf("%d bindings, want the controller's ClusterRoleBinding and RoleBinding", bindings)
	}
}

// The state key's Secret is a declaration: no value in the manifests, its
// one key read from KeyFile beside release.toml; uninstall may delete it.
func TestStateKeySecretIsDeclaredByItsFile(t *testing.T) {
	c := mustContent(t, testOptions())
	s := find(t, c, "Secret", StateKeySecret, nil)
	if _, has := s.Object["data"]; has {
		t.Error("the state key's Secret carries data")
	}
	if _, has := s.Object["stringData"]; has {
		t.Error("the state key's Secret carries stringData")
	}
	if s.GetAnnotations()["piceli.dev/prune"] != "allow" {
		t.Error("the state key's Secret is not annotated for uninstall to delete it")
	}
	want := []wire.SecretInfo{{Name: StateKeySecret, Keys: []wire.SecretKeyInfo{{Key: StateKeyKey, Source: wire.SourceFile, Ref: KeyFile}}}}
	if got := c.Metadata.Secrets; !reflect.DeepEqual(got, want) {
		t.Errorf("secret declarations %+v, want %+v", got, want)
	}
}

// Uninstall declares only the CRD: everything else the install created is
// pruned, and no Release is deleted with a CRD.
func TestUninstallDeclaresOnlyTheCRD(t *testing.T) {
	c, err := UninstallContent(Options{Kubeconfig: "k", Context: "c"})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Manifests) != 1 || c.Manifests[0].GetKind() != "CustomResourceDefinition" || c.Manifests[0].GetName() != "releases.piceli.dev" {
		t.Errorf("uninstall declares %d objects, want the CRD alone", len(c.Manifests))
	}
}

// Bad options are refused (exit 2 on the command line) naming what is
// wrong, before anything is written.
func TestBadOptionsAreRefusedBeforeWriting(t *testing.T) {
	for name, tc := range map[string]struct {
		edit func(*Options)
		want string
	}{
		"a tag instead of a digest":    {func(o *Options) { o.Image = "ghcr.io/pynenc/piceli-controller:v1" }, "pinned by digest"},
		"no image":                     {func(o *Options) { o.Image = "" }, "pinned by digest"},
		"a digest too short":           {func(o *Options) { o.Image = "img@sha256:abc" }, "pinned by digest"},
		"a namespace not a DNS label":  {func(o *Options) { o.Namespace = "Piceli_System" }, "DNS-1123"},
		"a namespace with a slash":     {func(o *Options) { o.Namespace = "../etc" }, "DNS-1123"},
		"kube-system":                  {func(o *Options) { o.Namespace = "kube-system" }, "of its own"},
		"default":                      {func(o *Options) { o.Namespace = "default" }, "of its own"},
		"no context":                   {func(o *Options) { o.Context = "" }, "context"},
		"no kubeconfig":                {func(o *Options) { o.Kubeconfig = "" }, "kubeconfig"},
		"an API server over http":      {func(o *Options) { o.APIServer = "http://127.0.0.1:6443" }, "https://IP:PORT"},
		"an API server without a port": {func(o *Options) { o.APIServer = "https://127.0.0.1" }, "https://IP:PORT"},
		"an API server by host name":   {func(o *Options) { o.APIServer = "https://localhost:6443" }, "IP address"},
		"an API server with a path":    {func(o *Options) { o.APIServer = "https://127.0.0.1:6443/x" }, "https://IP:PORT"},
		"an API server port 0":         {func(o *Options) { o.APIServer = "https://127.0.0.1:0" }, "out of range"},
		"a server name alone":          {func(o *Options) { o.APIServerName = "kubernetes" }, "needs --api-server"},
		"a server name not DNS": {func(o *Options) {
			o.APIServer, o.APIServerName = "https://127.0.0.1:6443", "bad name\n"
		}, "not a DNS name"},
	} {
		t.Run(name, func(t *testing.T) {
			o := testOptions()
			o.Dir = filepath.Join(t.TempDir(), "controller")
			tc.edit(&o)
			_, err := Prepare(o)
			if !refusal.Is(err) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Prepare: %v, want a refusal naming %q", err, tc.want)
			}
			if _, err := os.Stat(o.Dir); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("a refused install wrote %s (%v)", o.Dir, err)
			}
		})
	}
}

// Prepare writes the key once, owner-only, and the same signer line every
// time; the key's value is in no file but the key file.
func TestPrepareKeepsOneKeyAndWritesNoValue(t *testing.T) {
	o := testOptions()
	o.Dir = filepath.Join(t.TempDir(), "controller")
	first, err := Prepare(o)
	if err != nil {
		t.Fatal(err)
	}
	if !first.KeyCreated || first.KeyFile != filepath.Join(o.Dir, KeyFile) {
		t.Errorf("first Prepare: key %s created %v", first.KeyFile, first.KeyCreated)
	}
	second, err := Prepare(o)
	if err != nil {
		t.Fatal(err)
	}
	if second.KeyCreated || second.Signer != first.Signer || second.Digest != first.Digest {
		t.Errorf("second Prepare: created %v, signer %q (was %q), digest %s (was %s)", second.KeyCreated, second.Signer, first.Signer, second.Digest, first.Digest)
	}
	s, err := signer.Parse(first.Signer)
	if err != nil || !strings.HasPrefix(s.Name, "piceli-controller piceli-system@kwok-test") {
		t.Errorf("signer line %q: %v", first.Signer, err)
	}
	key, err := signer.Load(first.KeyFile)
	if err != nil || !bytes.Equal(key.Public(), s.Key) {
		t.Fatalf("the key file does not hold the signer's key: %v", err)
	}
	for _, d := range []string{o.Dir} {
		info, err := os.Stat(d)
		if err != nil || info.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s: mode %v, want owner-only (%v)", d, info.Mode().Perm(), err)
		}
	}
	pem, err := os.ReadFile(first.KeyFile)
	if err != nil {
		t.Fatal(err)
	}
	needles := [][]byte{pem, []byte(base64.StdEncoding.EncodeToString(pem)), bytes.TrimSpace(pem[bytes.IndexByte(pem, '\n')+1:])}
	filepath.WalkDir(o.Dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || path == first.KeyFile {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, n := range needles {
			if bytes.Contains(data, n[:40]) {
				t.Errorf("%s holds the state key's value", path)
			}
		}
		return nil
	})
	r, err := first.Open(release.Options{})
	if err != nil || r.Name() != ReleaseName || r.StateDir() != filepath.Join(o.Dir, StateDir) {
		t.Fatalf("open the prepared release: %v", err)
	}
}

// A directory whose release.toml is someone else's is never written; an
// uninstall without the install's state is refused.
func TestForeignDirAndMissingInstallAreRefused(t *testing.T) {
	dir := t.TempDir()
	theirs := []byte("[target]\n# someone's own release\n")
	if err := os.WriteFile(filepath.Join(dir, SpecFile), theirs, 0o644); err != nil {
		t.Fatal(err)
	}
	o := testOptions()
	o.Dir = dir
	if _, err := Prepare(o); !refusal.Is(err) || !strings.Contains(err.Error(), "did not write") {
		t.Errorf("Prepare into a foreign directory: %v", err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, SpecFile)); !bytes.Equal(data, theirs) {
		t.Error("Prepare overwrote someone else's release.toml")
	}
	if _, err := os.Stat(filepath.Join(dir, KeyFile)); !errors.Is(err, fs.ErrNotExist) {
		t.Error("Prepare created a key in a foreign directory")
	}
	o.Dir = filepath.Join(t.TempDir(), "never-installed")
	if _, err := PrepareUninstall(o); !refusal.Is(err) || !strings.Contains(err.Error(), "no controller installed") {
		t.Errorf("PrepareUninstall without an install: %v", err)
	}
}

// A context name never makes a path outside the controllers directory,
// and two contexts that look alike once made safe get two directories.
func TestDefaultDirIsContained(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	base, _ := os.UserConfigDir()
	root := filepath.Join(base, "piceli", "controllers")
	seen := map[string]string{}
	for _, ctx := range []string{"../../etc", "a/b", "a_b", "..", "/abs", "kwok-piceli", strings.Repeat("x", 300), "ctx\x00nul"} {
		d, err := DefaultDir(ctx, "piceli-system")
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Dir(d) != root || strings.ContainsAny(filepath.Base(d), "/\x00") || len(filepath.Base(d)) > 120 {
			t.Errorf("context %q: directory %s is not one file name under %s", ctx, d, root)
		}
		if prev, dup := seen[d]; dup {
			t.Errorf("contexts %q and %q share %s", prev, ctx, d)
		}
		seen[d] = ctx
	}
}

// A plan that moves the controller's ClusterRoleBinding to another
// namespace's ServiceAccount is refused; one that creates it, leaves it or
// changes something else is not.
func TestCheckPlanRefusesTakingOverAnotherController(t *testing.T) {
	crb := object.Ref{Group: "rbac.authorization.k8s.io", Kind: "ClusterRoleBinding", Name: Name}
	moved := &plan.Plan{Steps: []plan.Step{{Ref: crb, Action: plan.Update, Changes: []plan.Change{{Path: "subjects[name=piceli-controller].namespace", From: "ns-a", To: "ns-b"}}}}}
	if err := CheckPlan(moved); !refusal.Is(err) || !strings.Contains(err.Error(), "another namespace") {
		t.Errorf("CheckPlan(binding moved) = %v, want a refusal", err)
	}
	for name, p := range map[string]*plan.Plan{
		"created":       {Steps: []plan.Step{{Ref: crb, Action: plan.Create}}},
		"unchanged":     {Steps: []plan.Step{{Ref: crb, Action: plan.NoOp}}},
		"labels change": {Steps: []plan.Step{{Ref: crb, Action: plan.Update, Changes: []plan.Change{{Path: "metadata.labels.x"}}}}},
	} {
		if err := CheckPlan(p); err != nil {
			t.Errorf("CheckPlan(%s) = %v", name, err)
		}
	}
}
