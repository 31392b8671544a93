package plan_test

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/plan"
	pubplan "github.com/pynenc/piceli/plan"
)

// leaks returns every encoding of canary found in data.
func leaks(canary string, data []byte) []string {
	quoted, _ := json.Marshal(canary)
	forms := map[string]string{
		"raw":    canary,
		"base64": base64.StdEncoding.EncodeToString([]byte(canary)),
		"hex":    hex.EncodeToString([]byte(canary)),
		"url":    url.QueryEscape(canary),
		"json":   strings.Trim(string(quoted), `"`),
	}
	var found []string
	for name, f := range forms {
		if strings.Contains(string(data), f) {
			found = append(found, name)
		}
	}
	return found
}

// TestPlanNeverHoldsSecretValues plans a Secret whose value is a canary,
// first absent and then changed, and searches the stored plan and its text
// for the canary in every encoding.
func TestPlanNeverHoldsSecretValues(t *testing.T) {
	const canary = "canary-7f3a9c-do-not-leak"
	f := example(t, "hello")
	secret := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Secret",
		"metadata":   map[string]any{"name": "token", "namespace": f.ns, "labels": map[string]any{"piceli.dev/release": "hello"}},
		"stringData": map[string]any{"token": canary},
	}}
	f.input.Objects = append(f.input.Objects, object.Declared{Origin: "test", Object: secret})
	dir := t.TempDir()
	check := func(p *plan.Plan) {
		if _, err := plan.Save(dir, p); err != nil {
			t.Fatal(err)
		}
		var text strings.Builder
		p.Write(&text, pubplan.WriteOptions{})
		js, _ := json.Marshal(p)
		for what, data := range map[string][]byte{"text": []byte(text.String()), "json": js} {
			if l := leaks(canary, data); len(l) > 0 {
				t.Errorf("plan %s holds the canary as %v", what, l)
			}
		}
	}
	check(f.plan(t, plan.Options{}))

	old := secret.DeepCopy()
	unstructured.SetNestedField(old.Object, "previous-value", "stringData", "token")
	f.apply(t, old)
	p := f.plan(t, plan.Options{})
	s := find(t, p, "Secret", "token")
	if s.Action != plan.Update || len(s.Changes) != 1 || !s.Changes[0].Hidden || s.Changes[0].Path != "data.token" {
		t.Errorf("changed secret step: %s %+v, want one hidden change of data.token", s.Action, s.Changes)
	}
	check(p)
	files, _ := filepath.Glob(filepath.Join(plan.Dir(dir), "*.json"))
	for _, file := range files {
		data, _ := os.ReadFile(file)
		if l := leaks(canary, data); len(l) > 0 {
			t.Errorf("stored plan %s holds the canary as %v", filepath.Base(file), l)
		}
	}
}
