package cli

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/pynenc/piceli/controller"
	"github.com/pynenc/piceli/controller/install"
	"github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// controllerImage is a pinned reference; kwok never pulls it.
var controllerImage = "piceli.local/piceli/controller@sha256:" + strings.Repeat("cd", 32)

// Bad input to controller install and uninstall exits 2, names what is
// wrong and writes nothing: no key, no release directory, no request.
func TestControllerInstallRefusesBadInputWithExit2(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "controller")
	target := []string{"--kubeconfig", filepath.Join(dir, "no-kubeconfig"), "--context", "nowhere", "--dir", dir}
	for name, tc := range map[string]struct {
		args []string
		want string
	}{
		"a tag instead of a digest":  {[]string{"controller", "install", "--image", "ghcr.io/pynenc/piceli-controller:v1"}, "pinned by digest"},
		"no image":                   {[]string{"controller", "install"}, "pinned by digest"},
		"a bad namespace":            {[]string{"controller", "install", "--image", controllerImage, "--namespace", "Piceli_System"}, "DNS-1123"},
		"kube-system":                {[]string{"controller", "install", "--image", controllerImage, "--namespace", "kube-system"}, "of its own"},
		"an API server by name":      {[]string{"controller", "install", "--image", controllerImage, "--api-server", "https://example.invalid:6443"}, "IP address"},
		"a server name alone":        {[]string{"controller", "install", "--image", controllerImage, "--api-server-name", "kubernetes"}, "needs --api-server"},
		"a bad approval":             {[]string{"controller", "install", "--image", controllerImage, "--approve", "xyz"}, "xyz"},
		"uninstall, never installed": {[]string{"controller", "uninstall"}, "no controller installed"},
		"uninstall, bad namespace":   {[]string{"controller", "uninstall", "--namespace", "default"}, "of its own"},
	} {
		t.Run(name, func(t *testing.T) {
			res := run(t, append(tc.args, target...)...)
			if res.code != ExitRefused || !strings.Contains(res.stderr, tc.want) {
				t.Errorf("exit %d, want %d naming %q\n%s", res.code, ExitRefused, tc.want, res.stderr)
			}
			if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("a refused command wrote %s (%v)", dir, err)
			}
		})
	}
}

// controllerPlan runs a controller command without --approve: it must
// stop at the approval (exit 3) with the plan on stdout and the hint to
// apply it; it returns the plan.
func controllerPlan(t *testing.T, args ...string) *plan.Plan {
	t.Helper()
	res := run(t, append(args, "-o", "json")...)
	if res.code != ExitApproval || !strings.Contains(res.stderr, "approval required: nothing was applied; run: piceli "+strings.Join(args[:2], " ")) {
		t.Fatalf("piceli %s: exit %d, want 3 (approval required) naming the command\n%s", strings.Join(args, " "), res.code, res.stderr)
	}
	var p plan.Plan
	if err := json.Unmarshal([]byte(res.stdout), &p); err != nil || p.Hash == "" {
		t.Fatalf("plan of %v: %v\n%s", args, err, res.stdout)
	}
	return &p
}

// Acceptance of the install: it plans and refuses to apply without
// --approve (nothing created), applies exactly the approved plan (the CRD
// established, two replicas, roles that let the controller read Releases
// but not write a Deployment or read a Secret, the deployer role bound
// nowhere), plans again as a no-op, and uninstall deletes exactly what the
// install created: never a Release, never what a Release applied.
func TestControllerInstallPlanApproveUninstall(t *testing.T) {
	// Not parallel: it installs and removes the cluster-wide Release CRD.
	sb := sandboxtest.Cluster(t)
	ctx := sandboxtest.Context(t, 4*time.Minute)
	ns := "t-ctl-" + strings.ToLower(rand.Text()[:10])
	t.Cleanup(func() {
		sb.Clientset.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{})
	})
	dir := filepath.Join(t.TempDir(), "controller")
	target := []string{"--kubeconfig", sb.Kubeconfig, "--context", sb.Context, "--namespace", ns, "--dir", dir}
	installArgs := append([]string{"controller", "install", "--image", controllerImage}, target...)

	p := controllerPlan(t, installArgs...)
	if _, err := sb.Clientset.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("Namespace/%s after a plan without --approve: %v, want not found", ns, err)
	}
	created := map[string]bool{}
	for _, s := range p.Steps {
		switch {
		case s.Action == plan.Create:
			created[s.Ref.String()] = true
		case s.Ref.Namespace == ns:
			t.Errorf("install plans %s for %s, want create", s.Action, s.Ref)
		}
	}
	if len(p.Steps) != 11 {
		t.Errorf("install plans %d steps, want the 11 objects of the controller", len(p.Steps))
	}
	key, err := os.ReadFile(filepath.Join(dir, install.KeyFile))
	if err != nil {
		t.Fatal(err)
	}
	planJSON, _ := json.Marshal(p)
	if body := strings.Split(string(key), "\n")[1]; strings.Contains(string(planJSON), body[:32]) {
		t.Error("the plan holds the state key's value")
	}

	res := mustRun(t, append(installArgs, "--approve", p.Hash)...)
	if !strings.Contains(res.stderr, "ed25519:") {
		t.Errorf("install did not print the signer line:\n%s", res.stderr)
	}
	crds := schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	crd, err := sb.Dynamic.Resource(crds).Get(ctx, "releases.piceli.dev", metav1.GetOptions{})
	if err != nil || !established(crd) {
		t.Fatalf("CRD releases.piceli.dev after install: %v, established %v", err, err == nil && established(crd))
	}
	dep, err := sb.Clientset.AppsV1().Deployments(ns).Get(ctx, install.Name, metav1.GetOptions{})
	if err != nil || *dep.Spec.Replicas != 2 || dep.Status.ReadyReplicas != 2 {
		t.Fatalf("Deployment/%s/%s after install: %v (ready %d)", ns, install.Name, err, dep.Status.ReadyReplicas)
	}
	sec, err := sb.Clientset.CoreV1().Secrets(ns).Get(ctx, install.StateKeySecret, metav1.GetOptions{})
	if err != nil || string(sec.Data[install.StateKeyKey]) != string(key) {
		t.Errorf("Secret/%s/%s does not hold the key file's value: %v", ns, install.StateKeySecret, err)
	}
	checkControllerAccess(t, sb, ns)

	again := controllerPlan(t, installArgs...)
	for _, s := range again.Steps {
		if s.Action != plan.NoOp {
			t.Errorf("a second install plans %s for %s, want no-op", s.Action, s.Ref)
		}
	}

	// A second controller in another namespace would take over the first's
	// cluster-wide binding: refused, nothing created.
	other := ns + "-b"
	second := run(t, "controller", "install", "--image", controllerImage, "--kubeconfig", sb.Kubeconfig, "--context", sb.Context, "--namespace", other, "--dir", filepath.Join(t.TempDir(), "second"))
	if second.code != ExitRefused || !strings.Contains(second.stderr, "another namespace") {
		t.Errorf("a second controller in %s: exit %d, want %d naming the other namespace's controller\n%s", other, second.code, ExitRefused, second.stderr)
	}
	if _, err := sb.Clientset.CoreV1().Namespaces().Get(ctx, other, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("Namespace/%s after a refused install: %v, want not found", other, err)
	}

	// An upgrade changes the Deployment's image and nothing else.
	upgrade := controllerPlan(t, append([]string{"controller", "install", "--image", strings.Replace(controllerImage, "cdcd", "efef", 1)}, target...)...)
	for _, s := range upgrade.Steps {
		if want := map[bool]plan.Action{true: plan.Update, false: plan.NoOp}[s.Ref.Kind == "Deployment"]; s.Action != want {
			t.Errorf("a new image plans %s for %s, want %s", s.Action, s.Ref, want)
		}
	}

	// What uninstall must leave: a Release in the controller's namespace
	// and an object a Release applied elsewhere.
	app := sb.Namespace(t)
	applied := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "web", Labels: map[string]string{"piceli.dev/release": "web"}}}
	if _, err := sb.Clientset.CoreV1().ConfigMaps(app).Create(ctx, applied, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	releases := sb.Dynamic.Resource(schema.GroupVersionResource{Group: "piceli.dev", Version: "v1alpha1", Resource: "releases"}).Namespace(ns)
	rel := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "piceli.dev/v1alpha1", "kind": "Release", "metadata": map[string]any{"name": "web"},
		"spec": map[string]any{"targetNamespace": app, "source": map[string]any{"oci": map[string]any{"url": "oci://127.0.0.1:5000/web", "tag": "v1"}}},
	}}
	if _, err := releases.Create(ctx, rel, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create a Release: %v", err)
	}

	uninstallArgs := append([]string{"controller", "uninstall"}, target...)
	u := controllerPlan(t, uninstallArgs...)
	deleted := map[string]bool{}
	for _, s := range u.Steps {
		switch {
		case s.Action == plan.Delete:
			deleted[s.Ref.String()] = true
		case s.Ref.Kind == "CustomResourceDefinition" && s.Action == plan.NoOp:
		default:
			t.Errorf("uninstall plans %s for %s, want delete (or no-op for the CRD)", s.Action, s.Ref)
		}
	}
	wantDeleted := map[string]bool{}
	for _, s := range p.Steps {
		if ref := s.Ref.String(); s.Ref.Kind != "Namespace" && s.Ref.Kind != "CustomResourceDefinition" {
			wantDeleted[ref] = true
		}
	}
	if !maps.Equal(deleted, wantDeleted) {
		t.Errorf("uninstall deletes %v, want exactly the install's objects but the namespace and CRD: %v", keys(deleted), keys(wantDeleted))
	}
	mustRun(t, append(uninstallArgs, "--approve", u.Hash)...)
	sandboxtest.Eventually(t, 30*time.Second, "the controller's objects gone", func(ctx context.Context) (bool, error) {
		_, err := sb.Clientset.AppsV1().Deployments(ns).Get(ctx, install.Name, metav1.GetOptions{})
		_, serr := sb.Clientset.CoreV1().Secrets(ns).Get(ctx, install.StateKeySecret, metav1.GetOptions{})
		_, rerr := sb.Clientset.RbacV1().ClusterRoleBindings().Get(ctx, install.Name, metav1.GetOptions{})
		return apierrors.IsNotFound(err) && apierrors.IsNotFound(serr) && (!created["ClusterRoleBinding/"+install.Name] || apierrors.IsNotFound(rerr)), nil
	})
	if _, err := releases.Get(ctx, "web", metav1.GetOptions{}); err != nil {
		t.Errorf("the Release is gone after uninstall: %v", err)
	}
	if _, err := sb.Clientset.CoreV1().ConfigMaps(app).Get(ctx, "web", metav1.GetOptions{}); err != nil {
		t.Errorf("what a Release applied is gone after uninstall: %v", err)
	}
	if _, err := sb.Clientset.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{}); err != nil {
		t.Errorf("the controller's namespace is gone after uninstall: %v", err)
	}
}

// established reports whether a CRD's Established condition is True.
func established(crd *unstructured.Unstructured) bool {
	conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == "Established" && m["status"] == "True" {
			return true
		}
	}
	return false
}

// keys are m's keys, sorted.
func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// checkControllerAccess asks the API server's authorizer what the
// controller's ServiceAccount may do: read Releases and its Lease, but
// write no Deployment and read no Secret anywhere, and the deployer role
// is bound nowhere.
func checkControllerAccess(t *testing.T, sb *sandboxtest.Sandbox, ns string) {
	t.Helper()
	user := "system:serviceaccount:" + ns + ":" + install.Name
	allowed := func(namespace, group, resource, verb string) bool {
		review, err := sb.Clientset.AuthorizationV1().SubjectAccessReviews().Create(t.Context(), &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User: user, Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"},
			ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: namespace, Group: group, Resource: resource, Verb: verb},
		}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("SubjectAccessReview: %v", err)
		}
		return review.Status.Allowed
	}
	// The authorizer learns of new bindings through its informers.
	sandboxtest.Eventually(t, 30*time.Second, "the controller may watch Releases and update its Lease", func(context.Context) (bool, error) {
		return allowed("", "piceli.dev", "releases", "watch") && allowed(ns, "coordination.k8s.io", "leases", "update"), nil
	})
	for _, d := range []struct{ namespace, group, resource, verb string }{
		{"default", "apps", "deployments", "create"}, {ns, "apps", "deployments", "create"}, {"default", "", "configmaps", "update"},
		{"kube-system", "", "secrets", "get"}, {ns, "", "secrets", "list"}, {"default", "rbac.authorization.k8s.io", "rolebindings", "create"},
		{"", "rbac.authorization.k8s.io", "clusterrolebindings", "create"}, {"", "", "namespaces", "create"},
	} {
		if allowed(d.namespace, d.group, d.resource, d.verb) {
			t.Errorf("the controller may %s %s.%s in %q", d.verb, d.resource, d.group, d.namespace)
		}
	}
	bindings, err := sb.Clientset.RbacV1().RoleBindings("").List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bindings.Items {
		if b.RoleRef.Name == controller.DeployerRole && slices.ContainsFunc(b.Subjects, func(s rbacv1.Subject) bool { return s.Namespace == ns }) {
			t.Errorf("RoleBinding %s/%s binds the deployer role to the controller: install must not", b.Namespace, b.Name)
		}
	}
}

// controller status --wait takes only a state a Release can have, and
// says so before reaching any cluster.
func TestControllerStatusWaitRefusesAnUnknownState(t *testing.T) {
	res := run(t, "controller", "status", "ns/app", "--wait", "Readyy", "--kubeconfig", "missing.kubeconfig", "--context", "c")
	if res.code != ExitRefused || !strings.Contains(res.stderr, `--wait "Readyy" is not a state`) || !strings.Contains(res.stderr, "ApprovalRequired") {
		t.Fatalf("status --wait Readyy: exit %d, stderr %s; want exit 2 naming the states", res.code, res.stderr)
	}
}
