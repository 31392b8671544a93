package graph

import "testing"

func TestStageOf(t *testing.T) {
	tests := []struct {
		group, kind string
		want        Stage
	}{
		{"", "Namespace", StageNamespaces},
		{"apiextensions.k8s.io", "CustomResourceDefinition", StageNamespaces},
		{"rbac.authorization.k8s.io", "RoleBinding", StageIdentity},
		{"", "Secret", StageConfig},
		{"", "PersistentVolumeClaim", StageStorage},
		{"", "Service", StageServices},
		{"batch", "CronJob", StageWorkloads},
		{"example.com", "Widget", StageCustom},
		{"networking.k8s.io", "NetworkPolicy", StagePolicies},
		{"other.group", "Deployment", StageCustom},
	}
	for _, tt := range tests {
		if got := StageOf(tt.group, tt.kind); got != tt.want {
			t.Errorf("StageOf(%q, %q) = %s, want %s", tt.group, tt.kind, got, tt.want)
		}
	}
	for i, s := range Order {
		if s.Rank() != i {
			t.Errorf("%s.Rank() = %d, want %d", s, s.Rank(), i)
		}
	}
}
