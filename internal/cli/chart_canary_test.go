package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/internal/compose/chart"
	"github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
	"github.com/pynenc/piceli/release"
)

// shopChartRelease writes in dir a release of the compare example's chart
// into namespace ns, with extra [release] lines, and returns its spec.
func shopChartRelease(t *testing.T, dir string, sb *sandboxtest.Sandbox, ns, extra string) string {
	t.Helper()
	shop := filepath.Join(repoRoot(t), "examples/compare/helm/shop")
	d, err := chart.Digest(shop)
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{
		"release.toml":      fmt.Sprintf("[target]\nkubeconfig = %q\ncontext = %q\nnamespace = %q\n\n[release]\nname = \"shop\"\ncomposition = \"manifests\"\nready_timeout = \"2m\"\n%s\n[[charts]]\npath = %q\ndigest = %q\nvalues = { logLevel = \"info\" }\n", sb.Kubeconfig, sb.Context, ns, withTestState(extra), shop, d),
		"manifests/cm.yaml": configMap,
	})
	return filepath.Join(dir, "release.toml")
}

// planOf plans spec and returns the plan.
func planOf(t *testing.T, spec string) *plan.Plan {
	t.Helper()
	res := run(t, "release", "plan", "--spec", spec, "-o", "json")
	var p plan.Plan
	if err := json.Unmarshal([]byte(res.stdout), &p); res.code != ExitOK || err != nil {
		t.Fatalf("release plan: exit %d, %v\n%s", res.code, err, res.stderr)
	}
	return &p
}

// Two machines share a chart release through the cluster: the second,
// with an empty secret store, renders the chart from the seed the first
// stored, so its plan changes nothing and the password stays.
func TestSharedStateChartSeedReachesASecondMachine(t *testing.T) {
	t.Parallel()
	sb := sandboxtest.Cluster(t)
	ns := sb.Namespace(t)
	first := shopChartRelease(t, t.TempDir(), sb, ns, sharedState)
	if res := run(t, "release", "apply", "--spec", first, "--approve", planOf(t, first).Hash); res.code != ExitOK {
		t.Fatalf("release apply on the first machine: exit %d\n%s", res.code, res.stderr)
	}
	before, err := sb.Clientset.CoreV1().Secrets(ns).Get(context.Background(), "db-credentials", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	second := shopChartRelease(t, t.TempDir(), sb, ns, sharedState)
	p := planOf(t, second)
	for _, s := range p.Steps {
		if s.Action != plan.NoOp {
			t.Errorf("the second machine plans %s %s (%v), want no change", s.Action, s.Ref, s.Changes)
		}
	}
	if res := run(t, "release", "apply", "--spec", second, "--approve", p.Hash); res.code != ExitOK {
		t.Fatalf("release apply on the second machine: exit %d\n%s", res.code, res.stderr)
	}
	after, err := sb.Clientset.CoreV1().Secrets(ns).Get(context.Background(), "db-credentials", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if string(after.Data["password"]) != string(before.Data["password"]) || after.ResourceVersion != before.ResourceVersion {
		t.Errorf("the second machine's apply rotated the db-credentials password or wrote the Secret again")
	}
}

// The compare chart's db-credentials password, drawn by randAlphaNum from
// the release's chart seed, and the seed itself go through plan (twice,
// to the same hash), apply, a no-op plan, diff, status, render and an
// archive export, with -o json and -o markdown: neither is found in any
// output, nor in any file of the release outside its private store, nor
// in the exported archive. The store holds the seed.
func TestChartSecretValueAndSeedAreFoundNowhere(t *testing.T) {
	// Not parallel: it sweeps --verbose's request log (see run).
	sb := sandboxtest.Cluster(t)
	ns := sb.Namespace(t)
	dir := t.TempDir()
	spec := shopChartRelease(t, dir, sb, ns, "")
	var out outputs
	cmd := func(want int, args ...string) string {
		t.Helper()
		res := run(t, args...)
		if res.code != want {
			t.Fatalf("%s: exit %d, want %d\n%s", strings.Join(args, " "), res.code, want, res.stderr)
		}
		out.add(strings.Join(args, " "), res.stdout+res.stderr)
		return res.stdout
	}
	hash := func(doc string) string {
		t.Helper()
		var p plan.Plan
		if err := json.Unmarshal([]byte(doc), &p); err != nil || p.Hash == "" {
			t.Fatalf("release plan -o json printed no plan: %v\n%s", err, doc)
		}
		return p.Hash
	}
	first := hash(cmd(ExitOK, "release", "plan", "--spec", spec, "-o", "json"))
	if again := hash(cmd(ExitOK, "release", "plan", "--spec", spec, "-o", "json")); again != first {
		t.Errorf("planning the chart twice gave two hashes, %s and %s: its random password is not replayed", first, again)
	}
	cmd(ExitOK, "release", "plan", "--spec", spec, "-o", "markdown")
	cmd(ExitOK, "release", "diff", "--spec", spec, "-o", "json")
	cmd(ExitOK, "--verbose", "release", "apply", "--spec", spec, "--approve", first, "-o", "json")
	cmd(ExitOK, "release", "secret", "show", release.ChartSeedSecret, "--spec", spec)
	cmd(ExitOK, "release", "plan", "--spec", spec, "-o", "json")
	cmd(ExitOK, "release", "plan", "--spec", spec, "-o", "markdown")
	cmd(ExitOK, "release", "diff", "--spec", spec, "-o", "markdown")
	cmd(ExitOK, "release", "run", "--spec", spec, "-o", "json")
	cmd(ExitOK, "render", "--spec", spec, "-o", "json")
	archiveDir := t.TempDir()
	cmd(ExitOK, "release", "archive", "--spec", spec, "--out", archiveDir, "-o", "json")

	sec, err := sb.Clientset.CoreV1().Secrets(ns).Get(context.Background(), "db-credentials", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := release.Open(spec, release.Options{})
	if err != nil {
		t.Fatal(err)
	}
	seed, err := r.Secrets().Version(context.Background(), release.ChartSeedSecret, 0)
	if err != nil {
		t.Fatalf("the store holds no chart seed: %v", err)
	}
	canaries := map[string]string{"chart password": string(sec.Data["password"]), "chart seed": string(seed.Values()["seed"])}
	if len(canaries["chart password"]) != 32 || len(canaries["chart seed"]) != 64 {
		t.Fatalf("password of %d and seed of %d characters, want 32 and 64", len(canaries["chart password"]), len(canaries["chart seed"]))
	}
	for _, o := range out {
		if l := leaks([]byte(o.text), canaries); len(l) > 0 {
			t.Errorf("the output of %s holds secret values: %s", o.name, strings.Join(l, "; "))
		}
	}
	store := filepath.Join(dir, ".piceli-release", "secrets")
	swept := sweepDir(t, dir, canaries, store)
	for _, want := range []string{"plans/", "runs/"} {
		if !strings.Contains(strings.Join(swept, "\n"), filepath.Join(".piceli-release", want)) {
			t.Errorf("the sweep read no file of state_dir/%s; it read %q", want, swept)
		}
	}
	if len(sweepDir(t, archiveDir, canaries)) == 0 {
		t.Errorf("the sweep read no exported archive")
	}
}
