package object

import (
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// podTemplatePaths is where each workload kind, keyed "group/Kind", keeps
// the pod template its pods are made from.
var podTemplatePaths = map[string][]string{
	"apps/Deployment":  {"spec", "template"},
	"apps/StatefulSet": {"spec", "template"},
	"apps/DaemonSet":   {"spec", "template"},
	"apps/ReplicaSet":  {"spec", "template"},
	"batch/Job":        {"spec", "template"},
	"batch/CronJob":    {"spec", "jobTemplate", "spec", "template"},
}

// PodTemplatePath returns the field path of u's pod template
// ("spec", "template"; for a CronJob "spec", "jobTemplate", "spec",
// "template"), or nil when u's kind is not a workload with one. These are
// the workloads whose pods read Secrets and which roll when their template
// changes. It does not check that the field exists; the path is a copy.
func PodTemplatePath(u *unstructured.Unstructured) []string {
	return slices.Clone(podTemplatePaths[u.GroupVersionKind().Group+"/"+u.GetKind()])
}
