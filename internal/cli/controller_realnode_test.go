package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fluxcd/pkg/gittestserver"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/pynenc/piceli/api/v1alpha1"
	"github.com/pynenc/piceli/artifact"
	"github.com/pynenc/piceli/controller"
	"github.com/pynenc/piceli/controller/install"
	"github.com/pynenc/piceli/internal/sandbox"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
	"github.com/pynenc/piceli/internal/signer"
	"github.com/pynenc/piceli/publish"
)

// helloApp is the hello example's composition with its replicas in a
// constant, so that a new revision changes exactly one field.
func helloApp(replicas int) string {
	return fmt.Sprintf(`package demo

import "github.com/pynenc/piceli/app"

func Build(ctx *app.Context) (*app.Composition, error) {
	a := app.New("hello")
	web := a.Deployment("web",
		app.Image(ctx.Image("web")),
		app.Ports(8080),
		app.Ready(app.HTTPGet("/", 8080)),
		app.Replicas(%d),
	)
	a.Service(web, app.PortTo(80, 8080))
	return a.Composition(ctx)
}
`, replicas)
}

// helloProject is hello as a team's repository holds it, targeting ns:
// CI publishes it, an operator reaches it with piceli access.
type helloProject struct {
	dir, spec string
}

func newHelloProject(t *testing.T, rn *sandboxtest.RealNode, ns, image string) *helloProject {
	t.Helper()
	p := &helloProject{dir: t.TempDir()}
	p.spec = filepath.Join(p.dir, "release.toml")
	piceliModule(t, p.dir, "example.com/hello")
	writeFiles(t, p.dir, map[string]string{
		"infra.go":     helloApp(1),
		"release.toml": fmt.Sprintf("[target]\nkubeconfig = %q\ncontext = %q\nnamespace = %q\n\n[release]\nname = \"hello\"\ncomposition = \"infra.go:Build\"\n\n[images]\nweb = %q\n", rn.Kubeconfig, rn.Context, ns, image),
	})
	return p
}

// publish publishes revision replicas of hello, as CI would, and pushes it
// to the registry at addr as hello:v1.
func (p *helloProject) publish(t *testing.T, replicas int, addr string) {
	t.Helper()
	writeFiles(t, p.dir, map[string]string{"infra.go": helloApp(replicas)})
	out := filepath.Join(t.TempDir(), "layout")
	mustRun(t, "publish", "--spec", p.spec, "--out", out)
	ctx := sandboxtest.Context(t, time.Minute)
	a, err := publish.Fetch(ctx, out, artifact.RegistryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := publish.Push(ctx, a, publish.Destination{Registry: addr, Repository: "hello", Tag: "v1"}, publish.PushOptions{}); err != nil {
		t.Fatal(err)
	}
}

// controllerImageOnRealNode builds the controller's image from the
// repository and imports it into the real node's containerd.
func controllerImageOnRealNode(t *testing.T, node sandbox.RealNodeInfo) string {
	t.Helper()
	doc, stdout := controllerBuild(t)
	if doc.Build == nil || len(doc.Build.Images) != 1 {
		t.Fatalf("controller image build:\n%s", stdout)
	}
	ctr, err := exec.LookPath("ctr")
	if err != nil {
		sandboxtest.Unavailable(t, "no ctr (Debian package containerd) to import the controller image with")
	}
	mustRun(t, "artifacts", "import", doc.Build.Layout, "--deliver", "containerd", "--grant", "ctr="+ctr,
		"--containerd-address", node.Containerd, "--receipts", t.TempDir())
	return doc.Build.Images[0].Reference
}

// registryPod runs the controller guide's in-memory registry
// (examples/controller, built from this checkout) in a pod of the real
// node and returns its pod address (where the controller's pods pull from)
// and a forward to it on 127.0.0.1 (where the test pushes).
func registryPod(t *testing.T, rn *sandboxtest.RealNode, ns string) (podAddr, local string) {
	t.Helper()
	ctx := sandboxtest.Context(t, 2*time.Minute)
	spec := filepath.Join(repoRoot(t), "examples", "controller", "build.toml")
	mustRun(t, "artifacts", "pin", "--spec", spec)
	var doc artifact.BuildDoc
	if err := json.Unmarshal([]byte(mustRun(t, "artifacts", "build", "--spec", spec, "-o", "json").stdout), &doc); err != nil || doc.Build == nil || len(doc.Build.Images) != 1 {
		t.Fatalf("registry image build: %v", err)
	}
	if _, err := rn.Box.Load(ctx, doc.Build.Layout); err != nil {
		t.Fatal(err)
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "registry", Namespace: ns},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name: "registry", Image: doc.Build.Images[0].Reference, ImagePullPolicy: corev1.PullIfNotPresent,
			Ports: []corev1.ContainerPort{{ContainerPort: 5000}},
		}}},
	}
	if _, err := rn.Clientset.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var ip string
	sandboxtest.Eventually(t, time.Minute, "the registry pod runs", func(ctx context.Context) (bool, error) {
		p, err := rn.Clientset.CoreV1().Pods(ns).Get(ctx, "registry", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		ip = p.Status.PodIP
		return p.Status.Phase == corev1.PodRunning && ip != "", nil
	})
	return ip + ":5000", rn.LocalForward(t, ns, "registry", 5000)
}

// grantDeployer binds the deployer role in ns to the controller's
// ServiceAccount in controllerNS, as the namespace's owner does.
func grantDeployer(t *testing.T, sb *sandboxtest.Sandbox, ns, controllerNS string) {
	t.Helper()
	rb := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "piceli-deployer", Namespace: ns},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: controller.DeployerRole},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: install.Name, Namespace: controllerNS}},
	}
	if _, err := sb.Clientset.RbacV1().RoleBindings(ns).Create(t.Context(), rb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// releaseStatus waits until the Release's status satisfies ok.
func releaseStatus(t *testing.T, c client.Client, key types.NamespacedName, what string, ok func(*v1alpha1.ReleaseStatus) bool) *v1alpha1.ReleaseStatus {
	t.Helper()
	var st *v1alpha1.ReleaseStatus
	sandboxtest.Eventually(t, 3*time.Minute, what, func(ctx context.Context) (bool, error) {
		var rel v1alpha1.Release
		if err := c.Get(ctx, key, &rel); err != nil {
			return false, err
		}
		st = &rel.Status
		return ok(st), nil
	})
	return st
}

// approveByCLI reads the plan the Release waits on from `controller
// status -o json` and approves its hash with `controller approve`.
func approveByCLI(t *testing.T, rn *sandboxtest.RealNode, key types.NamespacedName) *v1alpha1.PlanSummary {
	t.Helper()
	target := []string{"--kubeconfig", rn.Kubeconfig, "--context", rn.Context}
	var doc controller.StatusDoc
	if err := json.Unmarshal([]byte(mustRun(t, append([]string{"controller", "status", key.String(), "-o", "json"}, target...)...).stdout), &doc); err != nil || len(doc.Releases) != 1 {
		t.Fatalf("controller status -o json: %v %+v", err, doc)
	}
	p := doc.Releases[0].Status.Plan
	if p == nil || p.ApprovedBy != "" {
		t.Fatalf("status shows plan %+v; want one waiting for approval", p)
	}
	mustRun(t, append([]string{"controller", "approve", key.String(), p.Hash}, target...)...)
	return p
}

func waitsOnANewPlan(after string) func(*v1alpha1.ReleaseStatus) bool {
	return func(st *v1alpha1.ReleaseStatus) bool {
		return st.State == v1alpha1.StateApprovalRequired && st.Plan != nil && st.Plan.Hash != after
	}
}

func appliedPlan(hash string) func(*v1alpha1.ReleaseStatus) bool {
	return func(st *v1alpha1.ReleaseStatus) bool {
		return st.State == v1alpha1.StateReady && st.AppliedPlan == hash
	}
}

// answers checks that hello's container answers through piceli access.
func answers(t *testing.T, rn *sandboxtest.RealNode, spec string) {
	t.Helper()
	a := startAccess(t, rn.Sandbox, spec)
	if got, err := body(a.url); got != helloGreeting {
		t.Fatalf("GET %s = %q, %v; want the container's greeting %q", a.url, got, err, helloGreeting)
	}
	a.interrupt(t, rn.Sandbox)
}

// onlyReplicasChange checks that a plan changes exactly Deployment web's
// spec.replicas.
func onlyReplicasChange(t *testing.T, p *v1alpha1.PlanSummary) {
	t.Helper()
	if len(p.Changes) != 1 || p.Changes[0].Kind != "Deployment" || p.Changes[0].Name != "web" ||
		len(p.Changes[0].Fields) != 1 || p.Changes[0].Fields[0] != "spec.replicas" {
		t.Fatalf("revision 2's plan changes %+v; want exactly Deployment web's spec.replicas", p.Changes)
	}
}

// Acceptance 1 of the controller issue, on the real node: install the
// controller from its own image (plan, approve), then deliver hello from
// an OCI source (revision 1 planned within an interval, approved, answering
// through piceli access; revision 2 a plan of exactly its one change,
// applied after approval); uninstall leaves hello running; then the same
// from a Git repository served on 127.0.0.1, by the controller program on
// this machine (pods cannot reach the host's loopback).
func TestControllerDeliversHelloFromOCIAndGitOnTheRealNode(t *testing.T) {
	t.Parallel() // most of it waits on the node and the controller
	rn, helloRef := helloOnRealNode(t)
	node, ok, err := rn.Box.RealNode()
	if err != nil || !ok || node.APIServer == "" {
		t.Fatalf("real node %+v, %t, %v; want one with an API server address for pods", node, ok, err)
	}
	image := controllerImageOnRealNode(t, node)
	ctx := sandboxtest.Context(t, 10*time.Minute)
	target := []string{"--kubeconfig", rn.Kubeconfig, "--context", rn.Context}

	ctlDir := filepath.Join(t.TempDir(), "controller")
	installArgs := append([]string{"controller", "install", "--image", image, "--api-server", node.APIServer, "--dir", ctlDir}, target...)
	p := controllerPlan(t, installArgs...)
	mustRun(t, append(installArgs, "--approve", p.Hash)...)
	sandboxtest.Eventually(t, 2*time.Minute, "the controller's two replicas are ready", func(ctx context.Context) (bool, error) {
		d, err := rn.Clientset.AppsV1().Deployments(install.DefaultNamespace).Get(ctx, install.Name, metav1.GetOptions{})
		return err == nil && d.Status.ReadyReplicas == 2, nil
	})

	ns := rn.Namespace(t)
	grantDeployer(t, rn.Sandbox, ns, install.DefaultNamespace)
	podAddr, local := registryPod(t, rn, ns)
	hello := newHelloProject(t, rn, ns, helloRef)
	hello.publish(t, 1, local)
	c, err := controller.Connect(ctx, controller.Target{Kubeconfig: rn.Kubeconfig, Context: rn.Context})
	if err != nil {
		t.Fatal(err)
	}
	key := types.NamespacedName{Namespace: ns, Name: "hello"}
	rel := &v1alpha1.Release{ObjectMeta: metav1.ObjectMeta{Name: key.Name, Namespace: key.Namespace}, Spec: v1alpha1.ReleaseSpec{
		Source:   v1alpha1.Source{OCI: &v1alpha1.OCISource{URL: "oci://" + podAddr + "/hello", Tag: "v1", Insecure: true}},
		Interval: metav1.Duration{Duration: 5 * time.Second},
		Checks: []v1alpha1.Check{{Name: "home page", HTTP: &v1alpha1.HTTPCheck{
			Service: "web", Port: 80, Path: "/", ExpectStatus: 200, BodyContains: strings.TrimSpace(helloGreeting),
		}}},
	}}
	if err := c.Create(ctx, rel); err != nil {
		t.Fatal(err)
	}
	releaseStatus(t, c, key, "revision 1 is planned", waitsOnANewPlan(""))
	first := approveByCLI(t, rn, key)
	st := releaseStatus(t, c, key, "revision 1 is applied", appliedPlan(first.Hash))
	if len(st.Checks) != 1 || !st.Checks[0].Passed || !conditionTrue(st, v1alpha1.ConditionChecksPassed) {
		t.Fatalf("checks after revision 1: %+v, conditions %+v; want the home page check passed", st.Checks, st.Conditions)
	}
	answers(t, rn, hello.spec)

	hello.publish(t, 2, local)
	releaseStatus(t, c, key, "revision 2 is planned", waitsOnANewPlan(first.Hash))
	second := approveByCLI(t, rn, key)
	onlyReplicasChange(t, second)
	releaseStatus(t, c, key, "revision 2 is applied", appliedPlan(second.Hash))
	if d, err := rn.Clientset.AppsV1().Deployments(ns).Get(ctx, "web", metav1.GetOptions{}); err != nil || d.Status.ReadyReplicas != 2 {
		t.Fatalf("web after revision 2: %v; want 2 ready replicas", err)
	}

	// Uninstalling the controller removes it, never what it delivered.
	uninstallArgs := append([]string{"controller", "uninstall", "--dir", ctlDir}, target...)
	mustRun(t, append(uninstallArgs, "--approve", controllerPlan(t, uninstallArgs...).Hash)...)
	sandboxtest.Eventually(t, time.Minute, "the controller's pods are gone", func(ctx context.Context) (bool, error) {
		pods, err := rn.Clientset.CoreV1().Pods(install.DefaultNamespace).List(ctx, metav1.ListOptions{})
		return err == nil && len(pods.Items) == 0, nil
	})
	answers(t, rn, hello.spec)
	t.Run("git", func(t *testing.T) { gitDelivers(t, rn, helloRef) })
}

// gitDelivers is the Git half: hello rendered into a repository served on
// 127.0.0.1, delivered by the controller program running on this machine.
func gitDelivers(t *testing.T, rn *sandboxtest.RealNode, helloRef string) {
	ctx := sandboxtest.Context(t, 5*time.Minute)
	ns := rn.Namespace(t)
	hello := newHelloProject(t, rn, ns, helloRef)
	rendered := filepath.Join(t.TempDir(), "rendered")
	mustRun(t, "render", "--spec", hello.spec, "--out", rendered)
	srv, err := gittestserver.NewTempGitServer()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(srv.Root()) })
	if err := srv.StartHTTP(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.StopHTTP)
	if !strings.HasPrefix(srv.HTTPAddress(), "http://127.0.0.1:") {
		t.Fatalf("the Git server listens at %s; want 127.0.0.1", srv.HTTPAddress())
	}
	if err := srv.InitRepo(rendered, "main", "hello.git"); err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	keyFile := filepath.Join(dir, "state.key")
	if _, _, err := signer.LoadOrCreate(keyFile); err != nil {
		t.Fatal(err)
	}
	grantDeployer(t, rn.Sandbox, ns, ns)
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- controller.Run(runCtx, controller.Options{
			Kubeconfig: rn.Kubeconfig, Context: rn.Context, Namespace: ns, ServiceAccount: install.Name,
			WorkDir: filepath.Join(dir, "work"), StateKeyFile: keyFile, Namespaces: []string{ns},
			MetricsAddr: "0", ProbeAddr: "0", DefaultInterval: 5 * time.Second, Log: t.Output(),
		})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("controller: %v", err)
		}
	})
	c, err := controller.Connect(ctx, controller.Target{Kubeconfig: rn.Kubeconfig, Context: rn.Context})
	if err != nil {
		t.Fatal(err)
	}
	key := types.NamespacedName{Namespace: ns, Name: "hello"}
	rel := &v1alpha1.Release{ObjectMeta: metav1.ObjectMeta{Name: key.Name, Namespace: key.Namespace}, Spec: v1alpha1.ReleaseSpec{
		Source: v1alpha1.Source{Git: &v1alpha1.GitSource{URL: srv.HTTPAddress() + "/hello.git", Branch: "main"}},
	}}
	if err := c.Create(ctx, rel); err != nil {
		t.Fatal(err)
	}
	releaseStatus(t, c, key, "the Git revision is planned", waitsOnANewPlan(""))
	p := approveByCLI(t, rn, key)
	releaseStatus(t, c, key, "the Git revision is applied", appliedPlan(p.Hash))
	answers(t, rn, hello.spec)
}

func conditionTrue(st *v1alpha1.ReleaseStatus, typ string) bool {
	for _, c := range st.Conditions {
		if c.Type == typ {
			return c.Status == metav1.ConditionTrue
		}
	}
	return false
}
