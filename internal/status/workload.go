package status

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/pynenc/piceli/internal/readiness"
)

// maxReasons bounds the reasons kept per object.
const maxReasons = 10

// replicas counts a workload's ready and desired pods; nil for other
// kinds.
func replicas(u *unstructured.Unstructured) *Replicas {
	num := func(path ...string) int64 {
		n, _, _ := unstructured.NestedInt64(u.Object, path...)
		return n
	}
	switch u.GroupVersionKind().GroupKind().String() {
	case "Deployment.apps", "StatefulSet.apps", "ReplicaSet.apps":
		desired, found, _ := unstructured.NestedInt64(u.Object, "spec", "replicas")
		if !found {
			desired = 1
		}
		return &Replicas{Ready: num("status", "readyReplicas"), Desired: desired}
	case "DaemonSet.apps":
		return &Replicas{Ready: num("status", "numberReady"), Desired: num("status", "desiredNumberScheduled")}
	}
	return nil
}

// reasons explains a workload that is not ready: its pods' diagnosis and,
// for a StatefulSet, its claims that are not bound.
func reasons(u *unstructured.Unstructured, live Live) []string {
	pods := selected(u, live.Pods[u.GetNamespace()])
	if u.GroupVersionKind().GroupKind().String() == "Pod" {
		pods = []corev1.Pod{}
		if p, ok := live.podNamed(u.GetNamespace(), u.GetName()); ok {
			pods = append(pods, p)
		}
	}
	lines := readiness.Diagnose(pods)
	lines = append(lines, pendingClaims(u, live.Claims[u.GetNamespace()])...)
	if len(lines) > maxReasons {
		lines = append(lines[:maxReasons], fmt.Sprintf("and %d more", len(lines)-maxReasons))
	}
	return lines
}

func (l Live) podNamed(ns, name string) (corev1.Pod, bool) {
	for _, p := range l.Pods[ns] {
		if p.Name == name {
			return p, true
		}
	}
	return corev1.Pod{}, false
}

// selected returns the pods, not being deleted, that a workload's
// spec.selector.matchLabels selects (none without matchLabels).
func selected(u *unstructured.Unstructured, pods []corev1.Pod) []corev1.Pod {
	match, found, _ := unstructured.NestedStringMap(u.Object, "spec", "selector", "matchLabels")
	if !found || len(match) == 0 {
		return nil
	}
	sel := labels.SelectorFromSet(match)
	var out []corev1.Pod
	for _, p := range pods {
		if p.DeletionTimestamp == nil && sel.Matches(labels.Set(p.Labels)) {
			out = append(out, p)
		}
	}
	return out
}

// pendingClaims names the claims a StatefulSet's pods need that are not
// bound: claim <template>-<set>-<ordinal> for each ordinal below its
// replicas.
func pendingClaims(u *unstructured.Unstructured, claims []corev1.PersistentVolumeClaim) []string {
	if u.GroupVersionKind().GroupKind().String() != "StatefulSet.apps" {
		return nil
	}
	templates, _, _ := unstructured.NestedSlice(u.Object, "spec", "volumeClaimTemplates")
	n := replicas(u).Desired
	byName := map[string]corev1.PersistentVolumeClaim{}
	for _, c := range claims {
		byName[c.Name] = c
	}
	var lines []string
	for _, t := range templates {
		tpl, _ := t.(map[string]any)
		name, _, _ := unstructured.NestedString(tpl, "metadata", "name")
		for i := range n {
			claim := fmt.Sprintf("%s-%s-%d", name, u.GetName(), i)
			c, ok := byName[claim]
			switch {
			case !ok:
				lines = append(lines, fmt.Sprintf("claim %s does not exist yet", claim))
			case c.Status.Phase != corev1.ClaimBound:
				lines = append(lines, claimLine(c))
			}
		}
	}
	return lines
}

// claimLine says why a claim is not bound, naming its StorageClass as
// Kubernetes reads it (the beta annotation first).
func claimLine(c corev1.PersistentVolumeClaim) string {
	phase := string(c.Status.Phase)
	if phase == "" {
		phase = string(corev1.ClaimPending)
	}
	var parts []string
	if sc, _ := readiness.ClaimClass(c.Annotations, c.Spec.StorageClassName); sc != "" {
		parts = append(parts, "storage class "+sc)
	} else {
		parts = append(parts, "no storage class")
	}
	for _, cond := range c.Status.Conditions {
		if cond.Message != "" {
			parts = append(parts, strings.TrimSpace(cond.Message))
		}
	}
	return fmt.Sprintf("claim %s is %s (%s)", c.Name, phase, strings.Join(parts, "; "))
}
