package importer

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/pynenc/piceli/internal/manifest"
)

// TestOwnFieldsDropDefaultsAndControllerFields: of a Deployment applied
// with kubectl and then scaled, import keeps what kubectl applied and the
// replicas kubectl scale set, and drops what the server defaulted and the
// controller wrote.
func TestOwnFieldsDropDefaultsAndControllerFields(t *testing.T) {
	docs, err := manifest.ReadFile("testdata/own/deployment-live.yaml")
	if err != nil {
		t.Fatal(err)
	}
	u := docs[0].Object
	os, ok := owners(u)
	if !ok {
		t.Fatal("owners() says only the control plane wrote the Deployment")
	}
	ownFields(u, os)
	clean(u)
	want := `apiVersion: apps/v1
kind: Deployment
metadata:
  labels:
    app: web
  name: web
  namespace: imp-fixture
spec:
  replicas: 3
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - image: nginx:1.27
        name: web
        ports:
        - containerPort: 80
`
	got, err := yaml.Marshal(u.Object)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("own fields of the Deployment (-want +got):\n%s", diff)
	}
}
