package plan

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

const pinned = "docker.io/library/nginx@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func manifest(t *testing.T, y string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(y), &u.Object); err != nil {
		t.Fatal(err)
	}
	return u
}

func TestImageWarnings(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want []string
	}{
		{"a Deployment names each unpinned container and init container", `
apiVersion: apps/v1
kind: Deployment
spec:
  template:
    spec:
      initContainers: [{name: setup, image: "busybox:1.36"}]
      containers: [{name: web, image: "nginx:1.27"}, {name: ok, image: "` + pinned + `"}, {name: sidecar, image: "envoy"}]`,
			[]string{`init container "setup": image "busybox:1.36" is not pinned by digest`,
				`container "web": image "nginx:1.27" is not pinned by digest`,
				`container "sidecar": image "envoy" is not pinned by digest`}},
		{"a CronJob's job template is read", `
apiVersion: batch/v1
kind: CronJob
spec:
  jobTemplate:
    spec:
      template:
        spec:
          containers: [{name: tick, image: "alpine"}]`,
			[]string{`container "tick": image "alpine" is not pinned by digest`}},
		{"a Pod is read", `
apiVersion: v1
kind: Pod
spec:
  containers: [{name: one, image: "alpine:3"}]`,
			[]string{`container "one": image "alpine:3" is not pinned by digest`}},
		{"a pinned workload has none", `
apiVersion: apps/v1
kind: StatefulSet
spec:
  template:
    spec:
      containers: [{name: db, image: "` + pinned + `"}]`, nil},
		{"a kind without pods has none", `
apiVersion: v1
kind: ConfigMap
data: {image: "nginx:1.27"}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := imageWarnings(manifest(t, tt.yaml)); !slices.Equal(got, tt.want) {
				t.Errorf("imageWarnings() = %q, want %q", got, tt.want)
			}
		})
	}
}
