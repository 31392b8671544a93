package release

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func secretIn(ns string, data map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Secret",
		"metadata": map[string]any{"name": "db", "namespace": ns}, "data": data}}
}

func configMapIn(ns, name string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": name, "namespace": ns}, "data": map[string]any{"a": "b"}}}
}

// The pure core names a Secret's differing keys and never a value, even
// were it handed values (Render never hands it any); objects only one
// environment declares are listed as such; the target namespaces are no
// difference.
func TestDiffEnvsNamesSecretKeysOnly(t *testing.T) {
	a := &renderedEnv{name: "staging", namespace: "shop-staging", values: map[string]string{}, images: map[string]string{},
		objects: []*unstructured.Unstructured{secretIn("shop-staging", map[string]any{"password": "c3RhZ2luZy1zZWNyZXQ="}), configMapIn("shop-staging", "same"), configMapIn("shop-staging", "old")}}
	b := &renderedEnv{name: "prod", namespace: "shop-prod", values: map[string]string{}, images: map[string]string{},
		objects: []*unstructured.Unstructured{secretIn("shop-prod", map[string]any{"password": "cHJvZC1zZWNyZXQ=", "token": "dG9rZW4tdmFsdWU="}), configMapIn("shop-prod", "same"), configMapIn("shop-prod", "new")}}
	d := diffEnvs(a, b)
	data, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	d.Write(&text)
	for _, secret := range []string{"c3RhZ2luZy1zZWNyZXQ=", "cHJvZC1zZWNyZXQ=", "dG9rZW4tdmFsdWU=", "staging-secret", "prod-secret", "token-value"} {
		if strings.Contains(string(data), secret) || strings.Contains(text.String(), secret) {
			t.Errorf("the env diff shows the secret value %q:\n%s\n%s", secret, data, text.String())
		}
	}
	want := "" +
		"environment staging compared with prod\n\n" +
		"objects (3):\n" +
		"  + ConfigMap/shop-prod/new: only in prod\n" +
		"  - ConfigMap/shop-staging/old: only in staging\n" +
		"  ~ Secret/shop-staging/db: data.password, data.token\n"
	if text.String() != want {
		t.Errorf("Write() =\n%s\nwant\n%s", text.String(), want)
	}
}
