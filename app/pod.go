package app

import (
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
)

// Replicas sets the desired pod count of a Deployment or StatefulSet.
// Without it Kubernetes defaults to 1; with an Autoscaler it is left out.
func Replicas(n int32) WorkloadOption {
	return workloadOption(func(w *Workload) {
		if !w.podOption("Replicas") || !w.only("Replicas", "Deployment", "StatefulSet") {
			return
		}
		if n < 0 {
			w.fail("replicas %d must not be negative", n)
		}
		w.replicas = &n
	})
}

// RunAs runs the workload's pods as the service account (declared on the
// same App, or named with ServiceAccountRef).
func RunAs(sa *ServiceAccount) WorkloadOption {
	return workloadOption(func(w *Workload) {
		if w.podOption("RunAs") && sa != nil && w.checkRef(sa) {
			w.pod.ServiceAccountName = sa.name
		}
	})
}

// Selector states the labels that select the workload's pods, for a
// workload that must match pods (and objects selecting them) that exist
// already; without it the builder selects on app.kubernetes.io/name and
// part-of. The pods carry these labels (and PodLabels, if given), and a
// Service, NetworkPolicy, Autoscaler or DisruptionBudget declared for the
// workload selects with them, so they still cannot disagree. A Job or
// CronJob has no selector of its own: its pods carry the labels. The map
// is copied.
func Selector(labels map[string]string) WorkloadOption {
	return workloadOption(func(w *Workload) {
		if w.podOption("Selector") && w.validLabels("selector", labels) {
			w.selector, w.selectorSet = maps.Clone(labels), true
		}
	})
}

// PodLabels gives the pods exactly these labels, which must include the
// selector's (the Selector, or the builder's name and part-of labels);
// without it pods carry the Selector, or the builder labels. A nil map
// means no labels, which only a Job or CronJob may have. The map is copied.
func PodLabels(labels map[string]string) WorkloadOption {
	return workloadOption(func(w *Workload) {
		if w.podOption("PodLabels") && w.validLabels("pod labels", labels) {
			w.podLabels, w.podLabelsSet = maps.Clone(labels), true
		}
	})
}

// PodAnnotations gives the pods these annotations. The map is copied.
func PodAnnotations(annotations map[string]string) WorkloadOption {
	return workloadOption(func(w *Workload) {
		if !w.podOption("PodAnnotations") {
			return
		}
		for _, k := range slices.Sorted(maps.Keys(annotations)) {
			if msg := explain("qualified name", validation.IsQualifiedName(k)); msg != "" {
				w.fail("pod annotation %q: key must be a %s", k, msg)
				return
			}
		}
		w.podNotes = maps.Clone(annotations)
	})
}

// validLabels checks label keys and values, recording the bad ones.
func (w *Workload) validLabels(field string, labels map[string]string) bool {
	errs := labelErrors(field, labels)
	for _, e := range errs {
		w.fail("%s", e)
	}
	return len(errs) == 0
}

// labelErrors describes the labels that are not valid keys and values.
func labelErrors(field string, labels map[string]string) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		msgs := append(validation.IsQualifiedName(k), validation.IsValidLabelValue(labels[k])...)
		if len(msgs) > 0 {
			out = append(out, fmt.Sprintf("%s %s=%s: %s", field, k, labels[k], explain("valid label", msgs)))
		}
	}
	return out
}

// NodeSelector schedules the pods only on nodes with these labels. The map
// is copied.
func NodeSelector(labels map[string]string) WorkloadOption {
	return workloadOption(func(w *Workload) {
		if w.podOption("NodeSelector") && w.validLabels("node selector", labels) {
			w.pod.NodeSelector = maps.Clone(labels)
		}
	})
}

// Affinity sets the pods' node, pod and anti-pod affinity. The value is
// copied.
func Affinity(a *corev1.Affinity) WorkloadOption {
	return workloadOption(func(w *Workload) {
		if !w.podOption("Affinity") {
			return
		}
		if a == nil {
			w.fail("affinity is nil")
			return
		}
		w.pod.Affinity = a.DeepCopy()
	})
}

// Tolerations lets the pods run on nodes with matching taints.
func Tolerations(ts ...corev1.Toleration) WorkloadOption {
	return workloadOption(func(w *Workload) {
		if !w.podOption("Tolerations") {
			return
		}
		for _, t := range ts {
			if msg := tolerationError(t); msg != "" {
				w.fail("toleration %q: %s", t.Key, msg)
				continue
			}
			w.pod.Tolerations = append(w.pod.Tolerations, *t.DeepCopy())
		}
	})
}

// tolerationError returns what is wrong with a toleration, or "".
func tolerationError(t corev1.Toleration) string {
	switch {
	case !slices.Contains([]corev1.TolerationOperator{"", corev1.TolerationOpExists, corev1.TolerationOpEqual}, t.Operator):
		return fmt.Sprintf("operator %q is not Exists or Equal", t.Operator)
	case t.Operator == corev1.TolerationOpExists && t.Value != "":
		return "an Exists toleration takes no value"
	case !slices.Contains([]corev1.TaintEffect{"", corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute}, t.Effect):
		return fmt.Sprintf("effect %q is not NoSchedule, PreferNoSchedule or NoExecute", t.Effect)
	case t.Key == "" && t.Operator != corev1.TolerationOpExists:
		return "a toleration without a key must be an Exists one"
	}
	return ""
}

// TopologySpread spreads the pods across topology domains (zones, nodes).
func TopologySpread(cs ...corev1.TopologySpreadConstraint) WorkloadOption {
	return workloadOption(func(w *Workload) {
		if !w.podOption("TopologySpread") {
			return
		}
		for _, c := range cs {
			if c.TopologyKey == "" || c.MaxSkew < 1 {
				w.fail("topology spread needs a topology key and a max skew of at least 1")
				continue
			}
			w.pod.TopologySpreadConstraints = append(w.pod.TopologySpreadConstraints, *c.DeepCopy())
		}
	})
}

// PodSecurity sets the pod's security context (user, group, fsGroup,
// seccomp profile, ...), shared by its containers. The value is copied.
func PodSecurity(sc *corev1.PodSecurityContext) WorkloadOption {
	return workloadOption(func(w *Workload) {
		if !w.podOption("PodSecurity") {
			return
		}
		if sc == nil {
			w.fail("pod security context is nil")
			return
		}
		w.pod.SecurityContext = sc.DeepCopy()
	})
}

// TerminationGrace gives the pods seconds to stop after SIGTERM before
// they are killed (Kubernetes' default is 30).
func TerminationGrace(seconds int64) WorkloadOption {
	return workloadOption(func(w *Workload) {
		if !w.podOption("TerminationGrace") {
			return
		}
		if seconds < 0 {
			w.fail("termination grace %d must not be negative", seconds)
		}
		w.pod.TerminationGracePeriodSeconds = &seconds
	})
}

// PriorityClass names the pods' PriorityClass.
func PriorityClass(name string) WorkloadOption {
	return workloadOption(func(w *Workload) {
		if !w.podOption("PriorityClass") {
			return
		}
		if msg := dnsSubdomain(name); msg != "" {
			w.fail("priority class %q must be a %s", name, msg)
			return
		}
		w.pod.PriorityClassName = name
	})
}

// HostNetwork runs the pods in the node's network namespace.
func HostNetwork() WorkloadOption {
	return workloadOption(func(w *Workload) {
		if w.podOption("HostNetwork") {
			w.pod.HostNetwork = true
		}
	})
}

// HostPID runs the pods in the node's process namespace.
func HostPID() WorkloadOption {
	return workloadOption(func(w *Workload) {
		if w.podOption("HostPID") {
			w.pod.HostPID = true
		}
	})
}

// DNSPolicy sets how the pods resolve names (ClusterFirst,
// ClusterFirstWithHostNet, Default or None).
func DNSPolicy(p corev1.DNSPolicy) WorkloadOption {
	return workloadOption(func(w *Workload) {
		if !w.podOption("DNSPolicy") {
			return
		}
		if !slices.Contains([]corev1.DNSPolicy{corev1.DNSClusterFirst, corev1.DNSClusterFirstWithHostNet, corev1.DNSDefault, corev1.DNSNone}, p) {
			w.fail("dns policy %q is not ClusterFirst, ClusterFirstWithHostNet, Default or None", p)
			return
		}
		w.pod.DNSPolicy = p
	})
}

// RestartPolicy sets the pods' restart policy: OnFailure or Never for a Job
// or CronJob (whose default here is Never), Always (Kubernetes' default,
// left unwritten without this option) for the others.
func RestartPolicy(p corev1.RestartPolicy) WorkloadOption {
	return workloadOption(func(w *Workload) {
		if !w.podOption("RestartPolicy") {
			return
		}
		if !slices.Contains([]corev1.RestartPolicy{corev1.RestartPolicyAlways, corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever}, p) {
			w.fail("restart policy %q is not Always, OnFailure or Never", p)
			return
		}
		w.pod.RestartPolicy = p
	})
}

// ImagePullSecrets names the Secrets (of type kubernetes.io/dockerconfigjson)
// the kubelet pulls the pods' images with.
func ImagePullSecrets(names ...string) WorkloadOption {
	return workloadOption(func(w *Workload) {
		if !w.podOption("ImagePullSecrets") {
			return
		}
		for _, n := range names {
			if msg := dnsSubdomain(n); msg != "" {
				w.fail("image pull secret %q must be a %s", n, msg)
				continue
			}
			w.pod.ImagePullSecrets = append(w.pod.ImagePullSecrets, corev1.LocalObjectReference{Name: n})
		}
	})
}

// AutomountOption is AutomountToken: a WorkloadOption and a
// ServiceAccountOption.
type AutomountOption struct{ on bool }

// AutomountToken says whether the service account's API token is mounted
// into the pods (on a workload) or into pods running as the account (on a
// ServiceAccount); a workload's setting beats its account's.
func AutomountToken(on bool) AutomountOption { return AutomountOption{on: on} }

func (o AutomountOption) applyWorkload(w *Workload) {
	if w.podOption("AutomountToken") {
		on := o.on
		w.pod.AutomountServiceAccountToken = &on
	}
}

func (o AutomountOption) applyServiceAccount(s *serviceAccountSpec) {
	on := o.on
	s.automount = &on
}

// only records that option applies only to the given kinds; the check
// runs once the workload's kind is known. It reports true, so options can
// chain it.
func (w *Workload) only(option string, kinds ...string) bool {
	w.restricted = append(w.restricted, restriction{option: option, kinds: kinds})
	return true
}

// restriction is an option that applies only to some kinds.
type restriction struct {
	option string
	kinds  []string
}

// checkKinds records options used on a kind they do not apply to.
func (w *Workload) checkKinds() {
	seen := map[string]bool{}
	for _, r := range w.restricted {
		if slices.Contains(r.kinds, w.kind) || seen[r.option] {
			continue
		}
		seen[r.option] = true
		w.errs = append(w.errs, fmt.Sprintf("%s applies only to a %s", r.option, orList(r.kinds)))
	}
}

// orList writes "A", "A or B", "A, B or C".
func orList(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	out := items[0]
	for _, it := range items[1 : len(items)-1] {
		out += ", " + it
	}
	return out + " or " + items[len(items)-1]
}
