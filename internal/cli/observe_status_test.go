package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/observe"
)

// After the shop example is applied, its run's session archive, exported
// with release archive, reconciles with the sandbox as every declared
// object present and ready (exit 0); a deleted ConfigMap is then missing
// and an extra one undeclared (exit 1). A bad archive is refused (exit 2).
func TestObserveStatusOfTheShop(t *testing.T) {
	t.Parallel()
	sb := appsSandbox(t)
	r := shopRelease(t, sb)
	forwardShop(t, sb, r.ns)
	p := r.plan(t)
	r.apply(t, p)
	runID, _ := r.latestRun(t)
	if _, err := os.Stat(filepath.Join(r.stateDir, "runs", runID, "archive.json")); err != nil {
		t.Fatalf("the run wrote no session archive: %v", err)
	}
	archivePath := exportedFile(t, run(t, "release", "archive", "--spec", r.spec, "--out", t.TempDir(), "-o", "json"), "release archive", "piceli.archive-export/v1")
	if filepath.Base(archivePath) != runID+".archive.json" {
		t.Errorf("release archive wrote %s, want RUN.archive.json of run %s", archivePath, runID)
	}
	status := func(want int) *observe.Report {
		t.Helper()
		res := run(t, "observe", "status", "--archive", archivePath, "--kubeconfig", sb.Kubeconfig, "--context", sb.Context, "-o", "json")
		var rep observe.Report
		if err := json.Unmarshal([]byte(res.stdout), &rep); err != nil || res.code != want {
			t.Fatalf("observe status: exit %d (want %d), %v\n%s%s", res.code, want, err, res.stdout, res.stderr)
		}
		return &rep
	}

	rep := status(ExitOK)
	declared := 0
	for _, s := range p.Steps {
		if s.Action != plan.Delete {
			declared++
		}
	}
	if rep.Counts[observe.Present] != declared || !rep.Cluster.Same || rep.Session.Run != runID {
		t.Fatalf("observe status after apply: %+v present of %d declared, same cluster %v, run %s (want %s)", rep.Counts, declared, rep.Cluster.Same, rep.Session.Run, runID)
	}
	var victim string
	for _, o := range rep.Objects {
		if o.State != observe.Present || o.Readiness != "current" {
			t.Errorf("%s: %s, %s (%s); want present and current", o.Object, o.State, o.Readiness, o.Message)
		}
		if o.Ref.Kind == "ConfigMap" && victim == "" {
			victim = o.Ref.Name
		}
	}
	if victim == "" {
		t.Fatal("the shop declares no ConfigMap to delete")
	}

	cms := sb.Clientset.CoreV1().ConfigMaps(r.ns)
	time.Sleep(1100 * time.Millisecond) // managedFields times have whole seconds: past the run's end
	edit := []byte(`{"data":{"index.html":"edited"}}`)
	if _, err := cms.Patch(t.Context(), "web-config", types.MergePatchType, edit, metav1.PatchOptions{FieldManager: "kubectl-edit"}); err != nil {
		t.Fatal(err)
	}
	rep = status(ExitOK)
	for _, o := range rep.Objects {
		edited := o.Object == "ConfigMap/"+r.ns+"/web-config"
		if got := len(o.Edits) > 0; got != edited {
			t.Errorf("%s: edits %+v; want edits only on web-config", o.Object, o.Edits)
		}
		if edited && (o.Edits[0].Manager != "kubectl-edit" || !slices.Contains(o.Edits[0].Fields, "data.index.html")) {
			t.Errorf("web-config's edits = %+v; want kubectl-edit's data.index.html", o.Edits)
		}
	}
	if rep.Edited != 1 {
		t.Errorf("edited = %d, want 1", rep.Edited)
	}

	if err := cms.Delete(t.Context(), victim, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cms.Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "not-in-the-archive"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	rep = status(ExitFailed)
	states := map[string]observe.State{}
	for _, o := range rep.Objects {
		states[o.Object] = o.State
	}
	if got := states["ConfigMap/"+r.ns+"/"+victim]; got != observe.Missing {
		t.Errorf("the deleted ConfigMap is %q, want missing", got)
	}
	if got := states["ConfigMap/"+r.ns+"/not-in-the-archive"]; got != observe.Undeclared {
		t.Errorf("the extra ConfigMap is %q, want undeclared", got)
	}
	if rep.Counts[observe.Undeclared] != 1 || rep.Counts[observe.Missing] != 1 {
		t.Errorf("counts = %+v, want exactly one missing and one undeclared", rep.Counts)
	}

	bad := filepath.Join(t.TempDir(), "bad.json")
	writeFiles(t, filepath.Dir(bad), map[string]string{"bad.json": "{\n  \"schema\": \"piceli.plan/v1\"\n}\n"})
	if res := run(t, "observe", "status", "--archive", bad, "--kubeconfig", sb.Kubeconfig, "--context", sb.Context); res.code != ExitRefused {
		t.Errorf("observe status of a plan file: exit %d, want %d: %s", res.code, ExitRefused, res.stderr)
	}
}
