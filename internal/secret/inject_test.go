package secret

import (
	"encoding/base64"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/object"
)

func workload(apiVersion, kind, name string, template map[string]any) object.Declared {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": map[string]any{"name": name}}}
	if kind == "CronJob" {
		u.Object["spec"] = map[string]any{"jobTemplate": map[string]any{"spec": map[string]any{"template": template}}}
	} else {
		u.Object["spec"] = map[string]any{"template": template}
	}
	return object.Declared{Origin: "test", Object: u}
}

func usingEnv(secret string) map[string]any {
	return map[string]any{"spec": map[string]any{"containers": []any{map[string]any{
		"name": "c", "env": []any{map[string]any{"name": "P", "valueFrom": map[string]any{"secretKeyRef": map[string]any{"name": secret, "key": "password"}}}},
	}}}}
}

func usingVolume(secret string) map[string]any {
	return map[string]any{"spec": map[string]any{
		"containers": []any{map[string]any{"name": "c"}},
		"volumes":    []any{map[string]any{"name": "v", "secret": map[string]any{"secretName": secret}}},
	}}
}

func annotation(t *testing.T, o object.Declared, path ...string) string {
	t.Helper()
	v, _, _ := unstructured.NestedString(o.Object.Object, append(path, "metadata", "annotations", AnnotationPrefix+"db")...)
	return v
}

func TestInject(t *testing.T) {
	key := []byte("k")
	v1 := &Version{Secret: "db", Number: 1, values: map[string][]byte{"password": []byte("one")}}
	v2 := &Version{Secret: "db", Number: 2, values: map[string][]byte{"password": []byte("two")}}
	build := func() []object.Declared {
		sec := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "db"}}}
		return []object.Declared{
			{Origin: "test", Object: sec},
			workload("apps/v1", "Deployment", "api", usingEnv("db")),
			workload("batch/v1", "CronJob", "report", usingVolume("db")),
			workload("apps/v1", "Deployment", "web", usingEnv("other")),
		}
	}
	objs := build()
	Inject(objs, map[string]*Version{"db": v1}, key)
	data, _, _ := unstructured.NestedStringMap(objs[0].Object.Object, "data")
	if got, _ := base64.StdEncoding.DecodeString(data["password"]); string(got) != "one" {
		t.Errorf("Secret data password = %q, want the version's value", got)
	}
	api := annotation(t, objs[1], "spec", "template")
	report := annotation(t, objs[2], "spec", "jobTemplate", "spec", "template")
	if api == "" || api != report {
		t.Errorf("digest annotations: Deployment %q, CronJob %q; want the same non-empty digest", api, report)
	}
	if web := annotation(t, objs[3], "spec", "template"); web != "" {
		t.Errorf("a workload that does not use the secret got annotation %q", web)
	}
	next := build()
	Inject(next, map[string]*Version{"db": v2}, key)
	if again := annotation(t, next[1], "spec", "template"); again == api {
		t.Errorf("a new secret version left the pod template annotation unchanged, so the workload would not roll")
	}
}

// TestInjectPinsTheAnnotation guards running workloads: the pod-template
// annotation an earlier Piceli wrote must be written alike by this one, or
// every workload using a secret would roll on upgrade. The value is the
// HMAC-SHA256 under "pinned key" of the length-prefixed (8-byte big-endian)
// keys and values in key order, checked outside Go.
func TestInjectPinsTheAnnotation(t *testing.T) {
	v := &Version{Secret: "db", Number: 1, values: map[string][]byte{"password": []byte("hunter2"), "user": []byte("admin")}}
	objs := []object.Declared{workload("apps/v1", "Deployment", "api", usingEnv("db"))}
	Inject(objs, map[string]*Version{"db": v}, []byte("pinned key"))
	want := "hmac-sha256:4d03d5d8f29b0b1b5e70aac37342bba960cd0b318ba0b9495c575572abde1b87"
	if got := annotation(t, objs[0], "spec", "template"); got != want {
		t.Errorf("Inject() annotation = %s, want %s", got, want)
	}
}
