package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
	"github.com/pynenc/piceli/plan"
)

// stagingAndProd writes a release whose environments staging and prod
// are two namespaces of the sandbox, standing for two clusters, and
// returns the spec's path.
func stagingAndProd(t *testing.T, sb *sandboxtest.Sandbox, staging, prod string) string {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"release.toml": fmt.Sprintf("[target]\nkubeconfig = %q\ncontext = %q\nnamespace = %q\n\n[release]\nname = \"demo\"\ncomposition = \"manifests\"\n\n"+
			"[environments.staging]\ntarget = { namespace = %q }\n\n[environments.prod]\ntarget = { namespace = %q }\n", sb.Kubeconfig, sb.Context, staging, staging, prod),
		"manifests/cm.yaml": configMap,
	})
	return filepath.Join(dir, "release.toml")
}

// planEnv runs "release plan --env ENV -o json" and returns the plan.
func planEnv(t *testing.T, spec, env string) *plan.Plan {
	t.Helper()
	res := run(t, "release", "plan", "--spec", spec, "--env", env, "-o", "json")
	if res.code != ExitOK {
		t.Fatalf("release plan --env %s: exit %d\n%s", env, res.code, res.stderr)
	}
	var p plan.Plan
	if err := json.Unmarshal([]byte(res.stdout), &p); err != nil || p.Hash == "" {
		t.Fatalf("release plan -o json: %v\n%s", err, res.stdout)
	}
	return &p
}

// settingsIn reports whether the ConfigMap settings exists in ns.
func settingsIn(t *testing.T, sb *sandboxtest.Sandbox, ns string) bool {
	t.Helper()
	_, err := sb.Clientset.CoreV1().ConfigMaps(ns).Get(t.Context(), "settings", metav1.GetOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Fatalf("get ConfigMap %s/settings: %v", ns, err)
	}
	return err == nil
}

// Acceptance 4 of issue 30: a plan made with --env staging and approved
// with --env prod exits 2, and nothing is written to either cluster (two
// namespaces) or either environment's state; the same hash approved for
// staging applies there alone.
func TestEnvPlanForStagingIsRefusedForProd(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	staging, prod := sb.Namespace(t), sb.Namespace(t)
	spec := stagingAndProd(t, sb, staging, prod)
	p := planEnv(t, spec, "staging")
	if p.Environment == nil || p.Environment.Name != "staging" || p.Target.Namespace != staging {
		t.Fatalf("plan --env staging records environment %+v, namespace %s; want staging in %s", p.Environment, p.Target.Namespace, staging)
	}
	before := filesUnder(t, filepath.Dir(spec))
	res := run(t, "release", "apply", "--spec", spec, "--env", "prod", "--approve", p.Hash)
	if res.code != ExitRefused || !strings.Contains(res.stderr, "a plan made for another environment is never applied to this one") {
		t.Fatalf("apply --env prod of staging's plan: exit %d, want %d saying why; stderr:\n%s", res.code, ExitRefused, res.stderr)
	}
	if after := filesUnder(t, filepath.Dir(spec)); !slices.Equal(before, after) {
		t.Errorf("the refused apply changed the state:\nbefore %q\nafter  %q", before, after)
	}
	if settingsIn(t, sb, staging) || settingsIn(t, sb, prod) {
		t.Fatalf("the refused apply wrote the ConfigMap (staging %v, prod %v)", settingsIn(t, sb, staging), settingsIn(t, sb, prod))
	}
	if ok := run(t, "release", "apply", "--spec", spec, "--env", "staging", "--approve", p.Hash); ok.code != ExitOK {
		t.Fatalf("apply --env staging of staging's plan: exit %d\n%s", ok.code, ok.stderr)
	}
	if !settingsIn(t, sb, staging) || settingsIn(t, sb, prod) {
		t.Errorf("after applying staging's plan: ConfigMap in staging %v, in prod %v; want staging only", settingsIn(t, sb, staging), settingsIn(t, sb, prod))
	}
}

// A stored plan the environment's own state directory holds, made before
// the spec had environments, is refused for environment prod before the
// target is contacted: its approval was for another resolution of the
// spec.
func TestEnvPlanMadeWithoutEnvironmentsIsRefusedForOne(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	ns := sb.Namespace(t)
	dir := t.TempDir()
	target := fmt.Sprintf("[target]\nkubeconfig = %q\ncontext = %q\nnamespace = %q\n\n[release]\nname = \"demo\"\ncomposition = \"manifests\"\n", sb.Kubeconfig, sb.Context, ns)
	writeFiles(t, dir, map[string]string{"release.toml": target, "manifests/cm.yaml": configMap})
	spec := filepath.Join(dir, "release.toml")
	res := run(t, "release", "plan", "--spec", spec, "-o", "json")
	var p plan.Plan
	if err := json.Unmarshal([]byte(res.stdout), &p); res.code != ExitOK || err != nil {
		t.Fatalf("release plan: exit %d, %v\n%s", res.code, err, res.stderr)
	}
	writeFiles(t, dir, map[string]string{"release.toml": target + "\n[environments.prod.release]\nstate_dir = \".piceli-release\"\n"})
	before := filesUnder(t, dir)
	res = run(t, "release", "apply", "--spec", spec, "--env", "prod", "--approve", p.Hash)
	if res.code != ExitRefused || !strings.Contains(res.stderr, "was made for the spec without environments, not for environment prod") {
		t.Fatalf("apply --env prod of a plan made without environments: exit %d, want %d naming both; stderr:\n%s", res.code, ExitRefused, res.stderr)
	}
	if strings.Contains(res.stderr, "using server") {
		t.Errorf("the refusal came after the target was contacted:\n%s", res.stderr)
	}
	if after := filesUnder(t, dir); !slices.Equal(before, after) || settingsIn(t, sb, ns) {
		t.Errorf("the refused apply wrote something (state changed: %v, ConfigMap written: %v)", !slices.Equal(before, after), settingsIn(t, sb, ns))
	}
}
