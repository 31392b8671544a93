package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/internal/history"
	"github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// Issue 28, hole 4: a hand-edited revision in the local state directory
// is not applied. Revision 1 is edited (a ClusterRoleBinding of
// cluster-admin added; or its ConfigMap's data forged), then an apply
// whose check fails triggers the automatic rollback (on_failure =
// "rollback") or a compensation (on_failure = "compensate"): neither
// writes the forged content, both say revision 1 is damaged, and release
// status shows it as damaged (release history too when its seal fails). Each edit is tried as a person
// without the digest key makes it (the seal fails) and as one holding it
// (re-sealed: the revision no longer matches its sealed plan).
func TestSecurityForgedLocalRevisionIsNotApplied(t *testing.T) {
	t.Parallel()
	sb := sandboxtest.Cluster(t)
	for _, tt := range []struct {
		name     string
		policy   string // on_failure
		resealed bool
		forge    func(t *testing.T, r *testRelease, crb string)
		want     string // in the apply's error output
	}{
		{name: "a ClusterRoleBinding for the automatic rollback", policy: "rollback", forge: addBinding, want: "does not match its seal"},
		{name: "a re-sealed ClusterRoleBinding for the automatic rollback", policy: "rollback", resealed: true, forge: addBinding, want: "holds 2 objects, the plan applied 1"},
		{name: "forged ConfigMap data for compensation", policy: "compensate", forge: forgeData, want: "does not match its seal"},
		{name: "re-sealed forged ConfigMap data for compensation", policy: "compensate", resealed: true, forge: forgeData, want: "is not the manifest the plan applied"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			policy := strings.Replace(gatedRollback, `"rollback"`, `"`+tt.policy+`"`, 1)
			r := newRelease(t, sb, "state = \"local\"\n"+policy, map[string]string{"cfg.yaml": configMapYAML("cfg", "mode", "one")})
			crb := "piceli-test-forged-" + r.ns
			t.Cleanup(func() { removeBinding(t, sb, crb) })
			r.gate(t, true)
			r.apply(t, r.plan(t))
			tt.forge(t, r, crb)
			if tt.resealed {
				resealLocal(t, r)
			}
			r.setManifest(t, "cfg.yaml", configMapYAML("cfg", "mode", "two"))
			r.gate(t, false)
			res := run(t, "release", "apply", "--spec", r.spec, "--approve", r.plan(t).Hash)
			if res.code == ExitOK || !strings.Contains(res.stderr, "revision 1 is damaged") || !strings.Contains(res.stderr, tt.want) {
				t.Errorf("apply with a failing check: exit %d, want a failure saying revision 1 is damaged (%s)\n%s", res.code, tt.want, res.stderr)
			}
			if _, err := sb.Clientset.RbacV1().ClusterRoleBindings().Get(t.Context(), crb, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				t.Errorf("ClusterRoleBinding %s: %v, want it never created", crb, err)
			}
			cm, err := sb.Clientset.CoreV1().ConfigMaps(r.ns).Get(t.Context(), "cfg", metav1.GetOptions{})
			if err != nil || cm.Data["mode"] != "two" {
				t.Errorf("ConfigMap cfg = %v (%v), want the failed run's mode two left as is: nothing restored from the forgery", cm.Data, err)
			}
			shows := [][]string{{"release", "run"}} // checks the latest revision as a rollback does
			if !tt.resealed {
				shows = append(shows, []string{"release", "history"}) // checks every revision's seal
			}
			for _, args := range shows {
				if out := run(t, append(args, "--spec", r.spec)...); !strings.Contains(out.stdout, "DAMAGED: revision 1 is damaged") {
					t.Errorf("%s does not show revision 1 as damaged:\n%s%s", strings.Join(args, " "), out.stdout, out.stderr)
				}
			}
		})
	}
}

// editRevision1 loads revision 1 of r, lets edit change it, and writes it
// back as a person editing the file would: its seal left as it was.
func editRevision1(t *testing.T, r *testRelease, edit func(*history.Revision)) {
	t.Helper()
	rev, err := history.Load(r.stateDir, 1)
	if err != nil {
		t.Fatal(err)
	}
	edit(rev)
	data, err := json.MarshalIndent(rev, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(r.stateDir, "history", "000001.json"), data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// addBinding adds to revision 1 a ClusterRoleBinding crb of cluster-admin
// to the default ServiceAccount of r's namespace.
func addBinding(t *testing.T, r *testRelease, crb string) {
	editRevision1(t, r, func(rev *history.Revision) {
		a := &attacker{ns: r.ns, name: "default"}
		rev.Objects = append(rev.Objects, history.Object{Ref: bindingRef(crb), APIVersion: "rbac.authorization.k8s.io/v1", Resource: "clusterrolebindings", Manifest: a.binding(crb)})
	})
}

// forgeData changes the data revision 1 holds for ConfigMap cfg.
func forgeData(t *testing.T, r *testRelease, _ string) {
	editRevision1(t, r, func(rev *history.Revision) {
		for _, o := range rev.Objects {
			if o.Ref.Kind == "ConfigMap" && o.Ref.Name == "cfg" {
				o.Manifest["data"] = map[string]any{"mode": "forged"}
			}
		}
	})
}

// resealLocal seals revision 1 again with the release's digest key, as
// someone who can read the state directory could.
func resealLocal(t *testing.T, r *testRelease) {
	t.Helper()
	rev, err := history.Load(r.stateDir, 1)
	if err != nil {
		t.Fatal(err)
	}
	key, err := plan.ReadKey(r.stateDir)
	if err != nil {
		t.Fatal(err)
	}
	resealRevision(t, r.stateDir, key, *rev)
}
