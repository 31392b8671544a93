package cli

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// noController is a load-balancer class no controller serves, so the
// Service never gets an address whatever load-balancer component the
// sandbox runs: exactly what a cluster without one does to every
// LoadBalancer Service (controllers leave Services of other classes alone).
const noController = "piceli.dev/no-such-controller"

// loadBalancerYAML is a LoadBalancer Service named lb selecting app=web,
// annotated piceli.dev/wait: wait unless wait is empty.
func loadBalancerYAML(wait string) string {
	meta := "metadata:\n  name: lb\n"
	if wait != "" {
		meta += fmt.Sprintf("  annotations:\n    piceli.dev/wait: %q\n", wait)
	}
	return "apiVersion: v1\nkind: Service\n" + meta + "spec:\n  type: LoadBalancer\n  loadBalancerClass: " + noController +
		"\n  selector:\n    app: web\n  ports:\n  - port: 80\n"
}

// Acceptance 5 of issue 11: a LoadBalancer Service that never gets an
// address, annotated piceli.dev/wait: "false", is applied and the run
// finishes; without the annotation the run fails after the readiness
// timeout, saying which object, why and how to skip its wait (exit 1).
// Under [release] wait = "none" nothing but what is annotated "true" is
// waited for. Bad values are refused before anything is stored (exit 2).
func TestApplyWaitPolicy(t *testing.T) {
	t.Parallel()
	sb := sandboxtest.Cluster(t)
	t.Run("an annotated Service is not waited for", func(t *testing.T) {
		t.Parallel()
		r := newRelease(t, sb, "ready_timeout = \"5s\"\n", map[string]string{
			"svc.yaml": loadBalancerYAML("false"), "deploy.yaml": deploymentYAML("web", 1, ""),
		})
		text := run(t, "release", "plan", "--spec", r.spec)
		want := "applied without waiting for readiness (1):\n  Service/" + r.ns + `/lb: annotated piceli.dev/wait: "false"` + "\n"
		if text.code != ExitOK || !strings.Contains(text.stdout, want) {
			t.Fatalf("release plan: exit %d, stdout:\n%s\nwant exit 0 and it to contain\n%s%s", text.code, text.stdout, want, text.stderr)
		}
		p := r.plan(t)
		res := r.apply(t, p)
		if want := "  no wait Service/" + r.ns + `/lb (annotated piceli.dev/wait: "false")`; !strings.Contains(res.stderr, want) {
			t.Errorf("apply stderr does not say the Service's wait was skipped (%q):\n%s", want, res.stderr)
		}
		r.assertFinished(t, p)
		r.assertNoAddress(t, p)
	})
	t.Run("a Service waited for fails the run after the timeout", func(t *testing.T) {
		t.Parallel()
		r := newRelease(t, sb, "ready_timeout = \"5s\"\n", map[string]string{
			"svc.yaml": loadBalancerYAML(""), "deploy.yaml": deploymentYAML("web", 1, ""),
		})
		p := r.plan(t)
		if nw := p.NotWaited(); len(nw) != 0 {
			t.Fatalf("the plan does not wait for %q; without annotation or [release] wait it waits for everything", nw)
		}
		start := time.Now()
		res := run(t, "release", "apply", "--spec", r.spec, "--approve", p.Hash)
		if res.code != ExitFailed {
			t.Fatalf("apply: exit %d, want %d\n%s", res.code, ExitFailed, res.stderr)
		}
		if took := time.Since(start); took < 5*time.Second {
			t.Errorf("apply failed after %s, before its 5s readiness timeout", took)
		}
		for _, want := range []string{
			"timed out after 5s",
			"Service/" + r.ns + "/lb in-progress: waiting for a load balancer ingress address",
			"no load-balancer address was assigned",
			`to apply without waiting for it, annotate it piceli.dev/wait: "false" (app.NoWait() in a Go composition), or set wait = "none" under [release] in release.toml`,
		} {
			if !strings.Contains(res.stderr, want) {
				t.Errorf("apply stderr does not contain %q:\n%s", want, res.stderr)
			}
		}
		if id, st := r.latestRun(t); st.Status != journal.StatusFailed {
			t.Errorf("journal of run %s says %s, want failed", id, st.Status)
		}
		if s := stepOf(t, p, "Deployment", "web"); !r.gone(t, s) {
			t.Errorf("%s of the next wave exists although the Service's wave never got ready", s.Ref)
		}
	})
	t.Run("under wait = none only objects annotated true are waited for", func(t *testing.T) {
		t.Parallel()
		r := newRelease(t, sb, "ready_timeout = \"5s\"\nwait = \"none\"\n", map[string]string{
			"svc.yaml": loadBalancerYAML(""), "cm.yaml": configMapYAML("settings", "mode", "fast"),
			"deploy.yaml": strings.Replace(deploymentYAML("web", 1, ""), "metadata:\n  name: web\n", "metadata:\n  name: web\n  annotations:\n    piceli.dev/wait: \"true\"\n", 1),
		})
		p := r.plan(t)
		for _, s := range p.Steps {
			want := plan.NoWaitRelease
			if s.Ref.Kind == "Deployment" {
				want = ""
			}
			if s.NoWait != want {
				t.Errorf("plan: %s NoWait = %q, want %q", s.Ref, s.NoWait, want)
			}
		}
		res := r.apply(t, p)
		if want := "  no wait Service/" + r.ns + `/lb (release.toml [release] wait = "none")`; !strings.Contains(res.stderr, want) {
			t.Errorf("apply stderr does not say the Service's wait was skipped (%q):\n%s", want, res.stderr)
		}
		if strings.Contains(res.stderr, "no wait Deployment/") {
			t.Errorf("apply skipped the wait of the Deployment annotated \"true\":\n%s", res.stderr)
		}
		r.assertFinished(t, p)
		r.assertNoAddress(t, p)
	})
	t.Run("bad values are refused before anything is stored", func(t *testing.T) {
		t.Parallel()
		r := newRelease(t, sb, "", map[string]string{"svc.yaml": loadBalancerYAML("later")})
		res := run(t, "release", "plan", "--spec", r.spec)
		want := "plan Service/" + r.ns + `/lb (declared by manifests/svc.yaml:1): bad annotation: piceli.dev/wait is "later"; want "true" or "false"`
		if res.code != ExitRefused || !strings.Contains(res.stderr, want) {
			t.Errorf("plan with piceli.dev/wait: \"later\": exit %d, stderr:\n%s\nwant exit %d and it to contain\n%s", res.code, res.stderr, ExitRefused, want)
		}
		if n := len(storedPlans(t, r.spec)); n != 0 {
			t.Errorf("%d plans stored after a refused plan, want none", n)
		}

		r = newRelease(t, sb, "wait = \"always\"\n", map[string]string{"svc.yaml": loadBalancerYAML("")})
		res = run(t, "release", "plan", "--spec", r.spec)
		if want := r.spec + `:9: release.wait: "always": want "ready" or "none"`; res.code != ExitRefused || !strings.Contains(res.stderr, want) {
			t.Errorf("plan with wait = \"always\": exit %d, stderr:\n%s\nwant exit %d and it to contain\n%s", res.code, res.stderr, ExitRefused, want)
		}
	})
}

// assertNoAddress checks that the release's Service lb has no ingress
// address: waiting for it would never have ended.
func (r *testRelease) assertNoAddress(t *testing.T, p *plan.Plan) {
	t.Helper()
	live, err := r.get(t, stepOf(t, p, "Service", "lb"))
	if err != nil {
		t.Fatal(err)
	}
	if ingress, _, _ := unstructured.NestedSlice(live.Object, "status", "loadBalancer", "ingress"); len(ingress) > 0 {
		t.Fatalf("Service lb has ingress %v; the test needs one no controller serves", ingress)
	}
}
