package sandbox

import "testing"

func TestLayoutNamesFiles(t *testing.T) {
	tests := []struct {
		name, kubeconfig, context, cluster string
	}{
		{"piceli", "/r/.piceli-sandbox/sandbox.kubeconfig", "kwok-piceli", "/r/.piceli-sandbox/kwok/clusters/piceli"},
		{"second", "/r/.piceli-sandbox/sandbox-second.kubeconfig", "kwok-second", "/r/.piceli-sandbox/kwok/clusters/second"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := NewLayout("/r/.piceli-sandbox", tt.name)
			if err != nil {
				t.Fatal(err)
			}
			if l.Kubeconfig() != tt.kubeconfig || l.Context() != tt.context || l.ClusterDir() != tt.cluster {
				t.Fatalf("NewLayout(%q) names %s, %s, %s; want %s, %s, %s", tt.name,
					l.Kubeconfig(), l.Context(), l.ClusterDir(), tt.kubeconfig, tt.context, tt.cluster)
			}
		})
	}
}

func TestLayoutRefusesBadNames(t *testing.T) {
	for _, name := range []string{"", "Piceli", "-a", "a-", "a/b", "../x", "a_b", "abcdefghijabcdefghijabcdefghijabc"} {
		if _, err := NewLayout("/r", name); err == nil {
			t.Errorf("NewLayout(%q) = nil error; want refused", name)
		}
	}
}
