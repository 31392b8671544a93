package cli

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// rolloutKeys are a generated value and a file: the generated one must
// stay put while the file changes.
var rolloutKeys = []secretKey{
	{key: "gen", source: `app.Generated("gen", 24)`},
	{key: "file", source: `app.FromFile("file", "secret/pw.txt")`},
}

// A changed secret source (the file rewritten) plans the Secret as an
// update whose changes are hidden, and the Deployment that reads it as an
// update of its pod template's digest annotation; applying it rolls the
// Deployment. Unchanged sources plan nothing: the generated value is made
// once and kept.
func TestSecretChangeRollsTheWorkload(t *testing.T) {
	t.Parallel()
	sb := sandboxtest.Cluster(t)
	r := newSecretRelease(t, sb, "", rolloutKeys, goComposition{})
	r.writeSecretFile(t, "secret/pw.txt", "first-password")
	r.apply(t, r.plan(t))
	first := r.templateAnnotation(t, secretName)
	if !strings.HasPrefix(first, "hmac-sha256:") {
		t.Fatalf("the Deployment's pod template annotation secret.piceli.dev/%s = %q, want a keyed digest", secretName, first)
	}
	gen := revealed(t, r.spec, secretName, "")["gen"]

	for i := range 2 {
		if p := r.plan(t); p.Changed() {
			t.Errorf("plan %d with unchanged sources: %s, want all unchanged\n%+v", i+1, p.Summary(), p.Steps)
		}
	}
	if got := revealed(t, r.spec, secretName, "")["gen"]; got != gen || gen == "" {
		t.Errorf("the generated value changed across plans (or is empty); want it kept")
	}

	r.writeSecretFile(t, "secret/pw.txt", "second-password")
	p := r.plan(t)
	assertSecretUpdateHidden(t, p, "data.file")
	assertTemplateDigestUpdate(t, p, "Deployment/"+r.ns+"/web", secretName)
	text := run(t, "release", "plan", "--spec", r.spec)
	if want := "data.file: changed (value hidden)"; text.code != ExitOK || !strings.Contains(text.stdout, want) {
		t.Errorf("text plan: exit %d, does not show %q:\n%s%s", text.code, want, text.stdout, text.stderr)
	}

	before, err := sb.Clientset.AppsV1().Deployments(r.ns).Get(t.Context(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r.apply(t, r.plan(t))
	second := r.templateAnnotation(t, secretName)
	if second == first || !strings.HasPrefix(second, "hmac-sha256:") {
		t.Errorf("after the apply the pod template annotation is %q (was %q), want a new keyed digest", second, first)
	}
	if got := r.liveSecretData(t, secretName); got["file"] != "second-password" || got["gen"] != gen {
		t.Errorf("live Secret after the apply: file %q, generated kept %t; want the new file and the same generated value", got["file"], got["gen"] == gen)
	}
	r.waitForRollout(t, before.Generation)
	if p := r.plan(t); p.Changed() {
		t.Errorf("plan after applying the change: %s, want all unchanged", p.Summary())
	}
}

// assertSecretUpdateHidden checks that p updates app-secrets with hidden
// changes at exactly paths.
func assertSecretUpdateHidden(t *testing.T, p *plan.Plan, paths ...string) {
	t.Helper()
	s := stepOf(t, p, "Secret", secretName)
	var got []string
	for _, c := range s.Changes {
		got = append(got, c.Path)
		if !c.Hidden || c.From != nil || c.To != nil {
			t.Errorf("Secret change %s: hidden %t, from %v, to %v; want hidden without values", c.Path, c.Hidden, c.From, c.To)
		}
	}
	if s.Action != plan.Update || strings.Join(got, ",") != strings.Join(paths, ",") {
		t.Errorf("Secret step: %s changing %q, want update changing %q", s.Action, got, paths)
	}
}

// assertTemplateDigestUpdate checks that p updates the workload ref only in
// its pod template's digest annotation for secret name.
func assertTemplateDigestUpdate(t *testing.T, p *plan.Plan, ref, name string) {
	t.Helper()
	for _, s := range p.Steps {
		if s.Ref.String() != ref {
			continue
		}
		want := "spec.template.metadata.annotations.secret.piceli.dev/" + name
		if s.Action != plan.Update || len(s.Changes) != 1 || s.Changes[0].Path != want || s.Changes[0].Kind != plan.Changed {
			t.Errorf("%s: %s with changes %+v, want an update changing only %s", ref, s.Action, s.Changes, want)
		}
		return
	}
	t.Errorf("the plan has no step for %s", ref)
}

// stepOf returns p's step for the object of kind and name.
func stepOf(t *testing.T, p *plan.Plan, kind, name string) plan.Step {
	t.Helper()
	for _, s := range p.Steps {
		if s.Ref.Kind == kind && s.Ref.Name == name {
			return s
		}
	}
	t.Fatalf("the plan has no step for %s %s", kind, name)
	return plan.Step{}
}

// waitForRollout waits until the Deployment web's controller has seen a
// generation after gen and made a second ReplicaSet for the new template.
func (r *secretRelease) waitForRollout(t *testing.T, gen int64) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		d, err := r.sb.Clientset.AppsV1().Deployments(r.ns).Get(t.Context(), "web", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		rs, err := r.sb.Clientset.AppsV1().ReplicaSets(r.ns).List(t.Context(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if d.Generation > gen && d.Status.ObservedGeneration >= d.Generation && len(rs.Items) >= 2 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no rollout: generation %d (was %d), observed %d, %d ReplicaSets; want a new generation and a second ReplicaSet", d.Generation, gen, d.Status.ObservedGeneration, len(rs.Items))
		}
		time.Sleep(200 * time.Millisecond)
	}
}
