package release

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/pynenc/piceli/internal/compose/chart"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
	"github.com/pynenc/piceli/plan"
)

// publicChartsDir is testdata/charts at the module's root, found from this
// file (the package's examples change the working directory).
func publicChartsDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "../testdata/charts")
}

// cmCRDs are the CRDs cert-manager v1.21.1 installs with crds.enabled.
var cmCRDs = []string{
	"certificaterequests.cert-manager.io", "certificates.cert-manager.io", "challenges.acme.cert-manager.io",
	"clusterissuers.cert-manager.io", "issuers.cert-manager.io", "orders.acme.cert-manager.io",
}

// publicChartsRelease writes a release of the two public charts of
// testdata/charts (values-piceli.yaml each), named cm and ms so that their
// cluster-wide objects are this run's, beside an object of its own, into
// ns. Both charts also write to kube-system (cert-manager its
// leader-election Roles, metrics-server the RoleBinding that lets it read
// extension-apiserver-authentication), which target.namespaces allows.
//
// Two values are the sandbox's, beside values-piceli.yaml, so that its API
// server dials loopback only: the API server calls an admission webhook or
// an aggregated API at its Service's ClusterIP, an address off loopback.
// cert-manager's webhooks are told to call 127.0.0.1:1, where nothing
// listens (webhook.url.host, the chart's value for a webhook served
// elsewhere), and metrics-server's APIService, which the aggregator would
// poll at once, is left out (apiService.create=false); the compare test
// renders it.
func publicChartsRelease(t *testing.T, sb *sandboxtest.Sandbox, ns, cm, ms string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "manifests"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "manifests/own.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: own}\n")
	spec := fmt.Sprintf("[target]\nkubeconfig = %q\ncontext = %q\nnamespace = %q\nnamespaces = [\"kube-system\"]\n\n[release]\nname = \"public\"\ncomposition = \"manifests/\"\nready_timeout = \"2m\"\n",
		sb.Kubeconfig, sb.Context, ns)
	for _, c := range []struct{ dir, chart, name, values string }{
		{"cert-manager-v1.21.1", "cert-manager", cm, `{ webhook = { url = { host = "127.0.0.1:1" } } }`},
		{"metrics-server-3.13.1", "metrics-server", ms, `{ apiService = { create = false } }`},
	} {
		path := filepath.Join(publicChartsDir(), c.dir, c.chart)
		d, err := chart.Digest(path)
		if err != nil {
			t.Fatal(err)
		}
		spec += fmt.Sprintf("\n[[charts]]\npath = %q\ndigest = %q\nname = %q\nvalues_file = %q\nvalues = %s\n",
			path, d, c.name, filepath.Join(publicChartsDir(), c.dir, "values-piceli.yaml"), c.values)
	}
	write(t, filepath.Join(dir, "release.toml"), spec)
	return filepath.Join(dir, "release.toml")
}

// removeClusterWide deletes what the charts named instances wrote outside
// the test namespace, which goes with sandboxtest's cleanup.
func removeClusterWide(t *testing.T, sb *sandboxtest.Sandbox, instances ...string) {
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		selector := metav1.ListOptions{LabelSelector: "app.kubernetes.io/instance in (" + strings.Join(instances, ",") + ")"}
		for _, gvr := range []schema.GroupVersionResource{
			{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"},
			{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"},
			{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterrolebindings"},
			{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingwebhookconfigurations"},
			{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "mutatingwebhookconfigurations"},
			{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"},
		} {
			if err := sb.Dynamic.Resource(gvr).DeleteCollection(ctx, metav1.DeleteOptions{}, selector); err != nil {
				t.Errorf("delete the charts' %s: %v", gvr.Resource, err)
			}
		}
		for _, resource := range []string{"roles", "rolebindings"} {
			gvr := schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: resource}
			if err := sb.Dynamic.Resource(gvr).Namespace("kube-system").DeleteCollection(ctx, metav1.DeleteOptions{}, selector); err != nil {
				t.Errorf("delete the charts' %s in kube-system: %v", resource, err)
			}
		}
	})
}

// Acceptance 6 of issue 31: two public charts, cert-manager (CRDs, a
// custom resource, webhooks, post-install hooks with a Job) and
// metrics-server (cluster RBAC, a PodDisruptionBudget), apply on
// the sandbox as one release approved by hash: the CRDs established, the
// Issuer accepted, the hooks after the chart's objects and by weight, the
// hook Job complete, the webhooks registered and enforcing, and a second
// plan changing nothing.
func TestPublicChartsApplyOnTheSandbox(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	ns := sb.Namespace(t)
	// cert-manager's own opt-out of its validating webhook, which it asks
	// of the namespace it runs in: the webhook is served nowhere here, and
	// its failurePolicy is Fail (not a chart value).
	nsClient := sb.Clientset.CoreV1().Namespaces()
	live, err := nsClient.Get(t.Context(), ns, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	live.Labels["cert-manager.io/disable-validation"] = "true"
	if _, err := nsClient.Update(t.Context(), live, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	suffix := ns[strings.LastIndex(ns, "-")+1:]
	cm, ms := "cm-"+suffix, "ms-"+suffix
	removeClusterWide(t, sb, cm, ms)
	ctx := sandboxtest.Context(t, 5*time.Minute)
	r, err := Open(publicChartsRelease(t, sb, ns, cm, ms), Options{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := r.Plan(ctx, PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wave, events := recordWaves()
	start := time.Now()
	res, err := r.Apply(ctx, p.Hash, RunOptions{Events: events})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("applied %d steps in %d waves in %s: %s", len(p.Steps), len(p.Waves), time.Since(start).Round(time.Millisecond), res.Phase)

	cmFull := cm + "-cert-manager"
	order := [][]string{
		{"CustomResourceDefinition/issuers.cert-manager.io"},
		{"Issuer/" + ns + "/" + cm + "-selfsigned", "Deployment/" + ns + "/" + cmFull + "-webhook", "Deployment/" + ns + "/" + cmFull},
		{"ServiceAccount/" + ns + "/" + cmFull + "-startupapicheck", "Role/" + ns + "/" + cmFull + "-startupapicheck:create-cert"},
		{"Job/" + ns + "/" + cmFull + "-startupapicheck"},
	}
	for _, group := range order {
		for _, ref := range group {
			t.Logf("wave %d: %s", wave[ref], ref)
		}
	}
	for i := 1; i < len(order); i++ {
		for _, before := range order[i-1] {
			for _, after := range order[i] {
				wb, okb := wave[before]
				wa, oka := wave[after]
				if !okb || !oka || wb >= wa {
					t.Errorf("%s (wave %d, applied %v) not before %s (wave %d, applied %v)", before, wb, okb, after, wa, oka)
				}
			}
		}
	}

	crds := sb.Dynamic.Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"})
	for _, name := range cmCRDs {
		crd, err := crds.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Errorf("CRD %s: %v", name, err)
			continue
		}
		if !condition(crd, "Established") {
			t.Errorf("CRD %s is not Established: %v", name, crd.Object["status"])
		}
	}
	issuers := sb.Dynamic.Resource(schema.GroupVersionResource{Group: "cert-manager.io", Version: "v1", Resource: "issuers"})
	if _, err := issuers.Namespace(ns).Get(ctx, cm+"-selfsigned", metav1.GetOptions{}); err != nil {
		t.Errorf("the chart's Issuer: %v", err)
	}
	job, err := sb.Clientset.BatchV1().Jobs(ns).Get(ctx, cmFull+"-startupapicheck", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if job.Status.Succeeded != 1 {
		t.Errorf("the startupapicheck hook Job has %d succeeded pods, want 1: %+v", job.Status.Succeeded, job.Status)
	}
	for _, name := range []string{cmFull, cmFull + "-cainjector", cmFull + "-webhook", ms + "-metrics-server"} {
		d, err := sb.Clientset.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Errorf("Deployment %s: %v", name, err)
		} else if d.Status.AvailableReplicas != *d.Spec.Replicas {
			t.Errorf("Deployment %s has %d of %d replicas available", name, d.Status.AvailableReplicas, *d.Spec.Replicas)
		}
	}
	if _, err := sb.Clientset.PolicyV1().PodDisruptionBudgets(ns).Get(ctx, ms+"-metrics-server", metav1.GetOptions{}); err != nil {
		t.Errorf("metrics-server's PodDisruptionBudget: %v", err)
	}
	for _, name := range []string{ms + "-metrics-server-auth-reader", cmFull + ":leaderelection", cmFull + "-cainjector:leaderelection"} {
		if _, err := sb.Clientset.RbacV1().RoleBindings("kube-system").Get(ctx, name, metav1.GetOptions{}); err != nil {
			t.Errorf("the charts' RoleBinding in kube-system: %v", err)
		}
	}
	if _, err := sb.Clientset.RbacV1().ClusterRoleBindings().Get(ctx, ms+"-metrics-server:system:auth-delegator", metav1.GetOptions{}); err != nil {
		t.Errorf("metrics-server's auth-delegator ClusterRoleBinding: %v", err)
	}

	// The validating webhook is registered and enforcing: an Issuer in a
	// namespace without the opt-out is sent to it, at 127.0.0.1:1, where
	// nothing answers.
	other := sb.Namespace(t)
	issuer := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "cert-manager.io/v1", "kind": "Issuer",
		"metadata": map[string]any{"name": "checked"}, "spec": map[string]any{"selfSigned": map[string]any{}},
	}}
	_, err = issuers.Namespace(other).Create(ctx, issuer, metav1.CreateOptions{})
	if err == nil || !strings.Contains(err.Error(), "webhook.cert-manager.io") {
		t.Errorf("an Issuer outside the opted-out namespace was not refused by the chart's webhook: %v", err)
	}
	t.Logf("an Issuer in another namespace: %v", err)

	again, err := r.Plan(ctx, PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range again.Steps {
		if s.Action != plan.NoOp {
			t.Errorf("the second plan would %s %s", s.Action, s.Ref)
		}
	}
}

// condition reports whether obj's status has condition kind True.
func condition(obj *unstructured.Unstructured, kind string) bool {
	conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == kind && m["status"] == "True" {
			return true
		}
	}
	return false
}
