package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/pynenc/piceli/internal/sandbox"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
	"github.com/pynenc/piceli/release"
	"github.com/pynenc/piceli/status"
)

// Acceptance 3: the applied shop example is ready (exit 0), and its
// status document is the golden one, once what differs run to run (the
// namespace, server, times, run ids, hashes, the loopback servers' tokens)
// is normalised. Status reads one LIST per kind and namespace, never a GET
// per object.
func TestStatusReportsTheShopReady(t *testing.T) {
	// Not parallel: it reads --verbose's request log (see run).
	sb := sandboxtest.Cluster(t)
	r := shopRelease(t, sb)
	persistentVolumeFor(t, sb, r.ns, "data-db-0", "5Gi")
	stopForwards := forwardShop(t, sb, r.ns)
	p := r.plan(t)
	r.apply(t, p)

	res := run(t, "status", "--spec", r.spec, "-o", "json")
	if res.code != ExitOK {
		t.Fatalf("status -o json: exit %d, want 0 (ready)\n%s%s", res.code, res.stdout, res.stderr)
	}
	var st release.Status
	if err := json.Unmarshal([]byte(res.stdout), &st); err != nil || st.Schema != "piceli.status/v1" || !st.Ready {
		t.Fatalf("status -o json = %v, schema %q, ready %v; want piceli.status/v1, ready\n%s", err, st.Schema, st.Ready, res.stdout)
	}
	golden(t, "status-shop.json", normalise(res.stdout, r))

	text := run(t, "status", "--spec", r.spec)
	n := len(p.Steps)
	for _, want := range []string{fmt.Sprintf("READY, %d of %d objects ready", n, n), "current  Deployment/" + r.ns + "/web", "2/2", "ingress " + r.ns + "/shop hosts: shop.example.com",
		"checks: 3 passed", "reach it: piceli access --spec " + r.spec} {
		if text.code != ExitOK || !strings.Contains(text.stdout, want) {
			t.Errorf("status: exit %d, stdout does not show %q:\n%s", text.code, want, text.stdout)
		}
	}
	stopForwards() // its polling would be in the request log too
	assertListsOnly(t, r)
	assertDriftReported(t, sb, r)
}

// assertDriftReported: status --drift finds nothing on the applied shop,
// then names a field kubectl edit changed, with its manager, and exits 1.
func assertDriftReported(t *testing.T, sb *sandboxtest.Sandbox, r *testRelease) {
	t.Helper()
	if res := run(t, "status", "--spec", r.spec, "--drift"); res.code != ExitOK || !strings.Contains(res.stdout, "drift: none; the cluster is what revision 1 left") {
		t.Fatalf("status --drift on the applied shop: exit %d, want 0 and no drift\n%s%s", res.code, res.stdout, res.stderr)
	}
	patch := []byte(`{"data":{"index.html":"edited"}}`)
	if _, err := sb.Clientset.CoreV1().ConfigMaps(r.ns).Patch(sandboxtest.Context(t, 30e9), "web-config", types.MergePatchType, patch, metav1.PatchOptions{FieldManager: "kubectl-edit"}); err != nil {
		t.Fatal(err)
	}
	res := run(t, "status", "--spec", r.spec, "--drift")
	want := "ConfigMap/" + r.ns + "/web-config data.index.html (changed by kubectl-edit)"
	if res.code != ExitFailed || !strings.Contains(res.stdout, want) || !strings.Contains(res.stderr, "drifted: 1 objects differ from revision 1") {
		t.Fatalf("status --drift after an edit: exit %d, want 1 naming %q\n%s%s", res.code, want, res.stdout, res.stderr)
	}
}

// normalise replaces what differs from run to run in a status document.
func normalise(doc string, r *testRelease) string {
	doc = strings.ReplaceAll(doc, r.ns, "NAMESPACE")
	doc = strings.ReplaceAll(doc, filepath.Dir(r.spec), "DIR")
	for re, repl := range map[string]string{
		`"server": "[^"]*"`:                         `"server": "SERVER"`,
		`"context": "[^"]*"`:                        `"context": "CONTEXT"`,
		`\d{4}-\d\d-\d\dT[0-9:.]+(Z|[+-]\d\d:\d\d)`: "TIME",
		`\d{8}-\d{6}-[0-9a-f]{6}`:                   "RUN",
		`[0-9a-f]{64}`:                              "HASH",
		`"durationMs": \d+`:                         `"durationMs": 0`,
		`"attempts": \d+`:                           `"attempts": 1`, // a pod's forward may come a moment late
		`piceli-[0-9a-f]{16}`:                       "TOKEN",
	} {
		doc = regexp.MustCompile(re).ReplaceAllString(doc, repl)
	}
	return doc
}

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v (generate it with go test ./internal/cli -run %s -update)", path, err, t.Name())
	}
	if string(want) != got {
		t.Errorf("%s differs from what the command printed (normalised); regenerate it with -update and review the diff:\n%s", path, got)
	}
}

// requestLine is a request as --verbose logs it.
var requestLine = regexp.MustCompile(`verb="(\w+)" url="(https://[^"]+)"`)

// assertListsOnly runs status with --verbose and checks every request it
// sends is a LIST (a collection, never one object), each once.
func assertListsOnly(t *testing.T, r *testRelease) {
	t.Helper()
	res := run(t, "status", "--spec", r.spec, "--verbose")
	seen := map[string]bool{}
	lists := 0
	for _, m := range requestLine.FindAllStringSubmatch(res.stderr, -1) {
		path := strings.SplitN(m[2], "?", 2)[0]
		if m[1] != "GET" {
			t.Errorf("status sent %s %s; it only reads", m[1], path)
		}
		if seen[path] {
			t.Errorf("status listed %s twice", path)
		}
		seen[path] = true
		if strings.Contains(path, "/namespaces/"+r.ns+"/") {
			lists++
			if parts := strings.Split(path[strings.Index(path, "/namespaces/"+r.ns+"/"):], "/"); len(parts) != 4 {
				t.Errorf("status sent GET %s, which reads one object; want LISTs only", path)
			}
		}
	}
	if lists < 10 {
		t.Errorf("status sent %d LISTs in the namespace, want one per kind (the shop has more than 10 kinds):\n%s", lists, res.stderr)
	}
}

// Acceptance 3, not ready: a Deployment whose pods cannot pull their image
// is reported not ready with that reason (exit 1), and so is the shop's
// database while its claim is pending (the sandbox has no storage
// provisioner yet).
func TestStatusSaysWhyNotReady(t *testing.T) {
	t.Parallel()
	sb := sandboxtest.Cluster(t)
	manifests := smallManifests()
	manifests["deploy.yaml"] = strings.Replace(deploymentYAML("web", 1, ""), "      labels:\n", "      annotations:\n        "+sandbox.SimulateAnnotation+": "+sandbox.SimulateImagePullBackOff+"\n      labels:\n", 1)
	sb.SimulateAnnotations(t, sandbox.SimulateImagePullBackOff)
	r := newRelease(t, sb, "ready_timeout = \"3s\"\n", manifests)
	if res := run(t, "release", "apply", "--spec", r.spec, "--approve", r.plan(t).Hash); res.code != ExitFailed {
		t.Fatalf("apply of a Deployment that cannot pull: exit %d, want 1\n%s", res.code, res.stderr)
	}
	st := statusJSON(t, r.spec)
	web := objectOf(t, st, "Deployment/"+r.ns+"/web")
	if web.Ready || web.Replicas == nil || web.Replicas.Ready != 0 || web.Replicas.Desired != 1 || !strings.Contains(strings.Join(web.Reasons, "\n"), "ImagePullBackOff") {
		t.Errorf("status of web = %+v, want not ready, 0/1 replicas, because of ImagePullBackOff", web)
	}
	if st.Source != "composition, not applied yet" || st.Run == nil || st.Run.Phase != "failed" {
		t.Errorf("status source %q, run %+v; want the composition (no revision yet) and the failed run", st.Source, st.Run)
	}
	if svc := objectOf(t, st, "Service/"+r.ns+"/web"); !svc.Ready || len(st.Services) != 1 || st.Services[0].Ports[0].Port != 80 {
		t.Errorf("status of Service web = %+v, services %+v; want ready with port 80", svc, st.Services)
	}

	// A claim no provisioner serves (its StorageClass does not exist, with
	// or without the sandbox's agent) keeps its StatefulSet's pod Pending.
	db := newRelease(t, sb, "ready_timeout = \"3s\"\n", map[string]string{"db.yaml": statefulSetWithClaimYAML("db", "piceli-test-absent-class")})
	db.setOnce(t)
	dbStatus := objectOf(t, statusJSON(t, db.spec), "StatefulSet/"+db.ns+"/db")
	if dbStatus.Ready || !strings.Contains(strings.Join(dbStatus.Reasons, "\n"), "claim data-db-0 is Pending") {
		t.Errorf("status of db = %+v, want not ready because claim data-db-0 is Pending", dbStatus)
	}
}

// statefulSetWithClaimYAML is a one-replica StatefulSet of fake pods whose
// claim template "data" asks for storageClass.
func statefulSetWithClaimYAML(name, storageClass string) string {
	return fmt.Sprintf(`apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: %[1]s
spec:
  serviceName: %[1]s
  replicas: 1
  selector:
    matchLabels:
      app: %[1]s
  template:
    metadata:
      labels:
        app: %[1]s
    spec:
      containers:
      - name: %[1]s
        image: example.invalid/%[1]s:1
        volumeMounts:
        - name: data
          mountPath: /data
  volumeClaimTemplates:
  - metadata:
      name: data
    spec:
      storageClassName: %[2]s
      accessModes: [ReadWriteOnce]
      resources:
        requests:
          storage: 1Gi
`, name, storageClass)
}

// setOnce plans and applies the release, which is to fail.
func (r *testRelease) setOnce(t *testing.T) {
	t.Helper()
	if res := run(t, "release", "apply", "--spec", r.spec, "--approve", r.plan(t).Hash); res.code != ExitFailed {
		t.Fatalf("apply: exit %d, want 1 (a wave not ready)\n%s", res.code, res.stderr)
	}
}

// statusJSON runs status -o json, which is to exit 1 (not ready).
func statusJSON(t *testing.T, spec string) *release.Status {
	t.Helper()
	res := run(t, "status", "--spec", spec, "-o", "json")
	var st release.Status
	if err := json.Unmarshal([]byte(res.stdout), &st); err != nil || res.code != ExitFailed || st.Ready {
		t.Fatalf("status -o json: exit %d, %v, ready %v; want exit 1, not ready\n%s%s", res.code, err, st.Ready, res.stdout, res.stderr)
	}
	if !strings.Contains(res.stderr, "not ready: ") {
		t.Errorf("status stderr does not say why it exits 1:\n%s", res.stderr)
	}
	return &st
}

func objectOf(t *testing.T, st *release.Status, ref string) status.Object {
	t.Helper()
	for _, o := range st.Objects {
		if o.Ref == ref {
			return o
		}
	}
	t.Fatalf("status has no %s", ref)
	return status.Object{}
}
