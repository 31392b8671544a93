package controller_test

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/api/v1alpha1"
	"github.com/pynenc/piceli/controller"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

func TestPolicyAppliesCreatesAndUpdatesAndWaitsOnADelete(t *testing.T) {
	h := startController(t, 0)
	ns := h.ns
	h.grantDeployer(t, ns, nil)
	h.src.set(configMaps("one", "two"))
	h.createRelease(t, ns, "app", v1alpha1.ReleaseSpec{Prune: true, Policy: &v1alpha1.Policy{Actions: []string{"create", "update"}}})

	rel := h.waitFor(t, ns, "app", "revision 1 is applied by the policy", func(r *v1alpha1.Release) bool { return r.Status.State == v1alpha1.StateReady })
	if rel.Status.Plan.ApprovedBy != controller.ApprovedByPolicy {
		t.Fatalf("revision 1 approved by %q; want the policy", rel.Status.Plan.ApprovedBy)
	}

	h.src.set(configMaps("one", "changed"))
	rel = h.waitFor(t, ns, "app", "revision 2 is applied by the policy", func(r *v1alpha1.Release) bool {
		return r.Status.State == v1alpha1.StateReady && len(r.Status.Runs) == 2
	})
	if cm, _ := h.configMap(t, ns, "cm-1"); cm.Data["value"] != "changed" {
		t.Fatalf("cm-1 after revision 2: %v", cm.Data)
	}

	h.src.set(configMaps("one")) // cm-1 is no longer declared: a delete
	rel = h.waitFor(t, ns, "app", "revision 3, which deletes, waits for a person", waitingOnPlan)
	if !strings.Contains(rel.Status.Plan.PolicyRefused, "delete") {
		t.Fatalf("policy refusal %q does not name the delete", rel.Status.Plan.PolicyRefused)
	}
	time.Sleep(3 * time.Second)
	if _, ok := h.configMap(t, ns, "cm-1"); !ok {
		t.Fatal("cm-1 was deleted without approval")
	}
	h.approve(t, ns, "app", rel.Status.Plan.Hash)
	h.waitFor(t, ns, "app", "the approved delete runs", func(r *v1alpha1.Release) bool {
		return r.Status.State == v1alpha1.StateReady && len(r.Status.Runs) == 3
	})
	if _, ok := h.configMap(t, ns, "cm-1"); ok {
		t.Fatal("cm-1 is still there after the approved delete")
	}
}

func TestSecurityAReleaseWritesOnlyWhereTheDeployerRoleIsBound(t *testing.T) {
	h := startController(t, 2)
	h.grantDeployer(t, h.ns, nil)
	elsewhere := h.others[0] // no RoleBinding there
	h.src.set(configMaps("one"))
	h.createRelease(t, elsewhere, "app", v1alpha1.ReleaseSpec{Policy: &v1alpha1.Policy{Actions: []string{"create"}}})
	rel := h.waitFor(t, elsewhere, "app", "the Release is stalled", func(r *v1alpha1.Release) bool { return r.Status.State == v1alpha1.StateStalled })
	if !strings.Contains(stalledMessage(rel), "no RoleBinding granting ClusterRole piceli-deployer") {
		t.Fatalf("stalled for %q", stalledMessage(rel))
	}

	// A Release in the controller's namespace may not target another
	// namespace that granted the role to its own Releases only.
	other := h.others[1]
	h.grantDeployer(t, other, nil)
	h.createRelease(t, h.ns, "sneaky", v1alpha1.ReleaseSpec{TargetNamespace: other, Policy: &v1alpha1.Policy{Actions: []string{"create"}}})
	rel = h.waitFor(t, h.ns, "sneaky", "the cross-namespace Release is stalled", func(r *v1alpha1.Release) bool { return r.Status.State == v1alpha1.StateStalled })
	if !strings.Contains(stalledMessage(rel), controller.ReleasesFromAnnotation) {
		t.Fatalf("stalled for %q", stalledMessage(rel))
	}
	time.Sleep(3 * time.Second)
	for _, ns := range []string{elsewhere, other} {
		if _, ok := h.configMap(t, ns, "cm-0"); ok {
			t.Fatalf("cm-0 was written in %s", ns)
		}
		if n := h.secretCount(t, ns); n != 0 {
			t.Fatalf("%d Secrets (release state) were written in %s", n, ns)
		}
	}
}

func stalledMessage(rel *v1alpha1.Release) string {
	for _, c := range rel.Status.Conditions {
		if c.Type == v1alpha1.ConditionStalled {
			return c.Message
		}
	}
	return ""
}

func TestSecurityAReleaseCannotSendAnUnlabelledSecret(t *testing.T) {
	h := startController(t, 0)
	h.grantDeployer(t, h.ns, nil)
	ctx := sandboxtest.Context(t, time.Minute)
	db := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: h.ns}, StringData: map[string]string{"username": "app", "password": "hunter2-db"}}
	if err := h.client.Create(ctx, db); err != nil {
		t.Fatal(err)
	}
	h.src.set(configMaps("one"))
	h.createRelease(t, h.ns, "app", v1alpha1.ReleaseSpec{
		Source: v1alpha1.Source{Git: &v1alpha1.GitSource{URL: "https://127.0.0.1:1/repo.git", Branch: "main", SecretRef: &corev1.LocalObjectReference{Name: "db"}}},
		Policy: &v1alpha1.Policy{Actions: []string{"create"}},
	})
	rel := h.waitFor(t, h.ns, "app", "the Release is stalled", func(r *v1alpha1.Release) bool { return r.Status.State == v1alpha1.StateStalled })
	if msg := stalledMessage(rel); !strings.Contains(msg, controller.CredentialsLabel) {
		t.Fatalf("stalled for %q", msg)
	}
	if _, ok := h.configMap(t, h.ns, "cm-0"); ok {
		t.Fatal("the release was applied")
	}
}
