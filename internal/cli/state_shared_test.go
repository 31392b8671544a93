package cli

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// sharedState is the [release] lines of a release whose state is in the
// cluster, signed by the tests' machine key (set by TestMain).
var sharedState string

// sharedKeys is one generated value: the value a second machine with an
// empty secret store would generate anew, were the state not shared.
var sharedKeys = []secretKey{{key: "gen", source: `app.Generated("gen", 32)`}}

// sharedBody adds a ConfigMap cfg whose value is [values] broken, so that
// setBroken makes a second, different revision.
var sharedBody = goComposition{body: `	_ = a.ConfigMap("cfg", app.Data("broken", ctx.Value("broken")))`}

// machine is one more checkout of r's release on "another machine": the
// same composition and target, its own directory and state directory.
func machine(t *testing.T, r *secretRelease) *secretRelease {
	t.Helper()
	dir := t.TempDir()
	m := &secretRelease{dir: dir, image: r.image, testRelease: &testRelease{sb: r.sb, ns: r.ns, name: r.name, spec: filepath.Join(dir, "release.toml"), stateDir: filepath.Join(dir, ".piceli-release")}}
	piceliModule(t, dir, "example.com/demo")
	writeFiles(t, dir, map[string]string{"infra.go": secretInfra(sharedKeys, sharedBody)})
	m.setBroken(t, false, sharedState)
	return m
}

// historySources returns the sources of the release's revisions as
// "release history -o json" on spec lists them.
func historySources(t *testing.T, spec string) []string {
	t.Helper()
	res := run(t, "release", "history", "--spec", spec, "-o", "json")
	var doc struct {
		Revisions []struct{ Source string } `json:"revisions"`
	}
	if res.code != ExitOK || json.Unmarshal([]byte(res.stdout), &doc) != nil {
		t.Fatalf("history -o json: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	var out []string
	for _, r := range doc.Revisions {
		out = append(out, r.Source)
	}
	return out
}

// Two machines share one release through the cluster: a plan and apply
// from the first, then history, a plan (no change, the same generated
// value, no Secret written) and a rollback from the second, and the first
// sees the rollback.
func TestSharedStateAcrossTwoMachines(t *testing.T) {
	t.Parallel()
	sb := sandboxtest.Cluster(t)
	a := newSecretRelease(t, sb, sharedState, sharedKeys, sharedBody)
	a.apply(t, a.plan(t))
	gen := revealed(t, a.spec, secretName, "")["gen"]
	secretRV := a.liveSecret(t).ResourceVersion

	b := machine(t, a)
	if got := historySources(t, b.spec); !slices.Equal(got, []string{"apply"}) {
		t.Fatalf("history on the second machine = %q, want the first machine's apply", got)
	}
	if p := b.plan(t); p.Changed() {
		t.Errorf("plan on the second machine changes %d steps, want none:\n%+v", len(p.Steps), p.Steps)
	}
	if got := revealed(t, b.spec, secretName, "")["gen"]; got != gen || gen == "" {
		t.Errorf("the second machine's generated value differs from the first's (or is empty)")
	}

	a.setBroken(t, true, sharedState)
	a.apply(t, a.plan(t))
	propose := run(t, "release", "rollback", "--spec", b.spec, "--to", "1")
	m := regexp.MustCompile(`--to 1 --approve ([0-9a-f]{12})`).FindStringSubmatch(propose.stderr)
	if propose.code != ExitApproval || m == nil {
		t.Fatalf("rollback --to 1 on the second machine: exit %d\n%s%s", propose.code, propose.stdout, propose.stderr)
	}
	if res := run(t, "release", "rollback", "--spec", b.spec, "--to", "1", "--approve", m[1]); res.code != ExitOK {
		t.Fatalf("rollback --approve on the second machine: exit %d\n%s", res.code, res.stderr)
	}
	cm, err := sb.Clientset.CoreV1().ConfigMaps(a.ns).Get(t.Context(), "cfg", metav1.GetOptions{})
	if err != nil || cm.Data["broken"] != "no" {
		t.Errorf("ConfigMap cfg after the rollback = %v (%v), want broken=no again", cm.Data, err)
	}
	want := []string{"apply", "apply", "rollback to 1"}
	for name, spec := range map[string]string{"first": a.spec, "second": b.spec} {
		if got := historySources(t, spec); !slices.Equal(got, want) {
			t.Errorf("history on the %s machine = %q, want %q", name, got, want)
		}
	}
	if got := a.liveSecret(t); got.ResourceVersion != secretRV || string(got.Data["gen"]) != gen {
		t.Errorf("the live Secret was written again (resourceVersion %s, was %s) or its value changed", got.ResourceVersion, secretRV)
	}
}

func (r *secretRelease) liveSecret(t *testing.T) *corev1.Secret {
	t.Helper()
	s, err := r.sb.Clientset.CoreV1().Secrets(r.ns).Get(t.Context(), secretName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}
