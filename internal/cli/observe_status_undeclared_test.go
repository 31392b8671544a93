package cli

import (
	"encoding/json"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/observe"
)

// Issue 27: a release that declares only a Deployment is applied; then a
// ConfigMap and a Secret are added to its namespace behind its back.
// observe status reports both undeclared, the Secret by name only: its
// value is in no output, and the ReplicaSet and pods the Deployment made
// are not reported.
func TestObserveStatusSeesUndeclaredKindsTheArchiveLacks(t *testing.T) {
	t.Parallel()
	sb := appsSandbox(t)
	r := newRelease(t, sb, "", map[string]string{"deploy.yaml": deploymentYAML("web", 1, "")})
	r.apply(t, r.plan(t))
	archivePath := exportedFile(t, run(t, "release", "archive", "--spec", r.spec, "--out", t.TempDir(), "-o", "json"), "release archive", "piceli.archive-export/v1")
	const canary = "canary-4f1d9a7c0e2b-never-read"
	core := sb.Clientset.CoreV1()
	if _, err := core.ConfigMaps(r.ns).Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "added-by-hand"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "token-by-hand"}, StringData: map[string]string{"token": canary}}
	if _, err := core.Secrets(r.ns).Create(t.Context(), secret, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	res := run(t, "observe", "status", "--archive", archivePath, "--kubeconfig", sb.Kubeconfig, "--context", sb.Context, "-o", "json")
	var rep observe.Report
	if err := json.Unmarshal([]byte(res.stdout), &rep); err != nil || res.code != ExitOK {
		t.Fatalf("observe status: exit %d (want 0: undeclared objects are information), %v\n%s%s", res.code, err, res.stdout, res.stderr)
	}
	var undeclared []string
	for _, o := range rep.Objects {
		if o.State == observe.Undeclared {
			undeclared = append(undeclared, o.Object)
		}
	}
	want := []string{"ConfigMap/" + r.ns + "/added-by-hand", "Secret/" + r.ns + "/token-by-hand"}
	if strings.Join(undeclared, " ") != strings.Join(want, " ") {
		t.Errorf("observe status reports %q undeclared, want %q", undeclared, want)
	}
	text := run(t, "observe", "status", "--archive", archivePath, "--kubeconfig", sb.Kubeconfig, "--context", sb.Context)
	for _, out := range []string{res.stdout, res.stderr, text.stdout, text.stderr} {
		if strings.Contains(out, canary) {
			t.Errorf("observe status printed the Secret's value:\n%s", out)
		}
	}
	if !strings.Contains(text.stdout, "Secret/"+r.ns+"/token-by-hand") {
		t.Errorf("observe status (text) does not name the added Secret:\n%s", text.stdout)
	}
}
