package app

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
)

func TestSecretTypeAndLabelsShapeTheSecretObject(t *testing.T) {
	tests := []struct {
		name       string
		opts       []SecretOption
		wantType   string
		wantLabels map[string]any
	}{
		{
			name:     "without options a secret is Opaque with the builder's labels",
			opts:     []SecretOption{FromCluster("tls.crt", "site", "tls.crt")},
			wantType: "Opaque",
			wantLabels: map[string]any{
				LabelName: "site", LabelPartOf: "demo", LabelManagedBy: ManagedBy,
			},
		},
		{
			name: "a type and its own labels are kept, its own value winning over the builder's",
			opts: []SecretOption{
				FromCluster("tls.crt", "site", "tls.crt"),
				SecretType(corev1.SecretTypeTLS),
				SecretLabel("app", "site"),
				SecretLabel(LabelName, "frontend"),
			},
			wantType: "kubernetes.io/tls",
			wantLabels: map[string]any{
				"app": "site", LabelName: "frontend", LabelPartOf: "demo", LabelManagedBy: ManagedBy,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := New("demo")
			a.Secret("site", tt.opts...)
			c, err := a.Composition(testContext())
			if err != nil {
				t.Fatalf("Composition() error = %v", err)
			}
			m := c.Objects()[0].Object.Object
			if got := m["type"]; got != tt.wantType {
				t.Errorf("type = %v, want %s", got, tt.wantType)
			}
			labels := m["metadata"].(map[string]any)["labels"]
			if diff := cmp.Diff(tt.wantLabels, labels); diff != "" {
				t.Errorf("labels (-want +got):\n%s", diff)
			}
			if _, ok := m["data"]; ok {
				t.Errorf("secret object carries data: %v", m["data"])
			}
		})
	}
}

func TestSecretMetadataErrorsNameTheSecret(t *testing.T) {
	tests := []struct {
		name string
		opt  SecretOption
		want string
	}{
		{"an empty type", SecretType(""), `secret "site": secret type is empty`},
		{"a label key that is not a qualified name", SecretLabel("bad key", "x"), `secret "site": label "bad key": key must be a qualified name`},
		{"a label value that is not a label value", SecretLabel("app", "no spaces"), `secret "site": label "app": value "no spaces" is not a label value`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := New("demo")
			a.Secret("site", FromCluster("k", "site", "k"), tt.opt)
			_, err := a.Composition(testContext())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Composition() error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}
