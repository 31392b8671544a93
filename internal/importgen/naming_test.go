package importgen

import "testing"

func TestCamelMakesReadableIdentifiers(t *testing.T) {
	tests := []struct{ name, prefix, want string }{
		{"web", "deployment", "web"},
		{"api-config", "configMap", "apiConfig"},
		{"system:aggregate-to-admin", "clusterRole", "systemAggregateToAdmin"},
		{"v1beta1.metrics.k8s.io", "apiService", "v1beta1MetricsK8sIo"},
		{"1st-run", "job", "job1stRun"},
		{"--", "secret", "secret"},
	}
	for _, tt := range tests {
		if got := camel(tt.name, tt.prefix); got != tt.want {
			t.Errorf("camel(%q, %q) = %q, want %q", tt.name, tt.prefix, got, tt.want)
		}
	}
}

func TestIdentifiersAreTakenOnce(t *testing.T) {
	ids := newIdentifiers()
	got := []string{ids.take("web"), ids.take("web", "webService"), ids.take("web", "webService"), ids.take("type"), ids.take("ctx")}
	want := []string{"web", "webService", "web2", "type2", "ctx2"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("take #%d = %q, want %q (all: %v)", i, got[i], want[i], got)
		}
	}
}

func TestPackageNameIsAValidGoName(t *testing.T) {
	tests := map[string]string{"shop": "shop", "kube-prometheus": "kubeprometheus", "1app": "infra1app", "app": "infraapp", "type": "infratype"}
	for in, want := range tests {
		if got := packageName(in); got != want {
			t.Errorf("packageName(%q) = %q, want %q", in, got, want)
		}
	}
}
