package object

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestPodTemplatePath(t *testing.T) {
	tests := []struct {
		name       string
		apiVersion string
		kind       string
		want       []string
	}{
		{"a Deployment keeps its template in spec", "apps/v1", "Deployment", []string{"spec", "template"}},
		{"a Job keeps its template in spec", "batch/v1", "Job", []string{"spec", "template"}},
		{"a CronJob keeps it in its job template", "batch/v1", "CronJob", []string{"spec", "jobTemplate", "spec", "template"}},
		{"a Deployment of another group is no workload", "example.com/v1", "Deployment", nil},
		{"a ConfigMap has no pod template", "v1", "ConfigMap", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": tt.apiVersion, "kind": tt.kind}}
			if diff := cmp.Diff(tt.want, PodTemplatePath(u)); diff != "" {
				t.Errorf("PodTemplatePath(%s %s) (-want +got):\n%s", tt.apiVersion, tt.kind, diff)
			}
		})
	}
}
