package cli

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
	"github.com/pynenc/piceli/internal/statedir"
	"github.com/pynenc/piceli/plan"
	"github.com/pynenc/piceli/release"
)

// The two digests of the image web: staging runs A; the spec then moves
// to B, which a plain plan of prod would take.
const (
	imageA = "example.com/web@sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	imageB = "example.com/web@sha256:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
)

// promoteBody is a Go composition of one Deployment, web, whose image is
// [images] web and whose replicas are [values] replicas.
const promoteBody = `	n, err := strconv.Atoi(ctx.Value("replicas"))
	if err != nil {
		return nil, err
	}
	a.Deployment("web", app.Image(ctx.Image("web")), app.Replicas(int32(n)))
`

// promoteRelease is a release over that composition whose environments
// staging and prod are two namespaces of the sandbox, standing for two
// clusters; prod runs 3 replicas where staging runs 1.
type promoteRelease struct {
	dir, spec, staging, prod string
	extra                    string // more lines of its [release] table
	sb                       *sandboxtest.Sandbox
}

func newPromoteRelease(t *testing.T, sb *sandboxtest.Sandbox, extra string) *promoteRelease {
	t.Helper()
	r := &promoteRelease{dir: t.TempDir(), staging: sb.Namespace(t), prod: sb.Namespace(t), extra: extra, sb: sb}
	r.spec = filepath.Join(r.dir, "release.toml")
	piceliModule(t, r.dir, "example.com/demo")
	infra := strings.Replace(buildWith(promoteBody), `import "github.com/pynenc/piceli/app"`, "import (\n\t\"strconv\"\n\n\t\"github.com/pynenc/piceli/app\"\n)", 1)
	writeFiles(t, r.dir, map[string]string{"infra.go": infra})
	r.setImage(t, imageA)
	return r
}

// setImage writes release.toml with [images] web = image.
func (r *promoteRelease) setImage(t *testing.T, image string) {
	t.Helper()
	writeFiles(t, r.dir, map[string]string{"release.toml": fmt.Sprintf(`[target]
kubeconfig = %q
context = %q
namespace = %q

[release]
name = "demo"
composition = "infra.go:Build"
%s
[images]
web = %q

[values]
replicas = "1"

[environments.staging]
target = { namespace = %q }

[environments.prod]
target = { namespace = %q }
values = { replicas = "3" }
`, r.sb.Kubeconfig, r.sb.Context, r.staging, r.extra, image, r.staging, r.prod)})
}

// apply plans env and applies that plan.
func (r *promoteRelease) apply(t *testing.T, env string) {
	t.Helper()
	p := planEnv(t, r.spec, env)
	if res := run(t, "release", "apply", "--spec", r.spec, "--env", env, "--approve", p.Hash); res.code != ExitOK {
		t.Fatalf("release apply --env %s: exit %d\n%s", env, res.code, res.stderr)
	}
}

// web is the live Deployment web in ns, nil when there is none.
func (r *promoteRelease) web(t *testing.T, ns string) *appsv1.Deployment {
	t.Helper()
	d, err := r.sb.Clientset.AppsV1().Deployments(ns).Get(t.Context(), "web", metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		t.Fatalf("get Deployment %s/web: %v", ns, err)
	}
	return d
}

// podImages waits until the live pods of Deployment web in ns (those not
// terminating) number want, and returns their images.
func (r *promoteRelease) podImages(t *testing.T, ns string, want int) []string {
	t.Helper()
	d := r.web(t, ns)
	if d == nil {
		t.Fatalf("no Deployment %s/web", ns)
	}
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		t.Fatal(err)
	}
	var images []string
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(250 * time.Millisecond) {
		pods, err := r.sb.Clientset.CoreV1().Pods(ns).List(t.Context(), metav1.ListOptions{LabelSelector: sel.String()})
		if err != nil {
			t.Fatalf("list the pods of %s/web: %v", ns, err)
		}
		images = images[:0]
		for _, p := range pods.Items {
			if p.DeletionTimestamp == nil {
				for _, c := range p.Spec.Containers {
					images = append(images, c.Image)
				}
			}
		}
		if len(images) == want || time.Now().After(deadline) {
			return images
		}
	}
}

// promotionOutput is what promote -o json prints.
type promotionOutput struct {
	release.Promotion
	Next string `json:"next"`
}

// Acceptance 5 of issue 30: staging runs digest A; the spec moves to
// digest B (a plain plan of prod would take it); promote --from staging
// --to prod plans prod with A, read from staging's history and confirmed
// live, writing nothing to either namespace; applying that plan by its
// hash gives prod's Deployment and its pods digest A, with prod's own 3
// replicas.
func TestPromoteGivesProdTheDigestsStagingRan(t *testing.T) {
	t.Parallel()
	sb := sandboxtest.Cluster(t)
	r := newPromoteRelease(t, sb, "")
	r.apply(t, "staging")
	if got := r.podImages(t, r.staging, 1); len(got) != 1 || got[0] != imageA {
		t.Fatalf("staging's pods run %q, want one running %s", got, imageA)
	}
	r.setImage(t, imageB)

	start := time.Now()
	res := run(t, "promote", "--spec", r.spec, "--from", "staging", "--to", "prod", "-o", "json")
	took := time.Since(start)
	if res.code != ExitOK {
		t.Fatalf("promote: exit %d\n%s", res.code, res.stderr)
	}
	t.Logf("promote took %s", took.Round(time.Millisecond))
	var out promotionOutput
	if err := json.Unmarshal([]byte(res.stdout), &out); err != nil {
		t.Fatalf("decode promote -o json: %v\n%s", err, res.stdout)
	}
	if out.Schema != release.PromotionSchema || out.From != "staging" || out.To != "prod" || out.Revision != 1 {
		t.Errorf("promotion header = %s %s→%s revision %d, want %s staging→prod revision 1", out.Schema, out.From, out.To, out.Revision, release.PromotionSchema)
	}
	if len(out.Images) != 1 || out.Images[0] != (release.PromotedImage{Key: "web", Own: imageB, Ran: imageA}) {
		t.Errorf("images set = %+v, want web from B to A", out.Images)
	}
	if out.Confirmed.Workloads != 1 || out.Confirmed.Pods != 1 {
		t.Errorf("confirmed live = %+v, want staging's one Deployment and its one pod", out.Confirmed)
	}
	p := out.Plan
	if p == nil || p.Hash == "" || p.Environment == nil || p.Environment.Name != "prod" || p.Environment.Images["web"] != imageA ||
		p.Environment.Promoted == nil || p.Environment.Promoted.From != "staging" || p.Target.Namespace != r.prod {
		t.Fatalf("promote's plan = %+v, want prod's plan with web = A, recording the promotion", p)
	}
	wantNext := "piceli release apply --spec " + r.spec + " --env prod --approve " + plan.ShortHash(p.Hash)
	if out.Next != wantNext {
		t.Errorf("next = %q, want %q", out.Next, wantNext)
	}
	if r.web(t, r.prod) != nil {
		t.Fatal("promote wrote Deployment web into prod")
	}
	if img := r.web(t, r.staging).Spec.Template.Spec.Containers[0].Image; img != imageA {
		t.Fatalf("staging's Deployment now runs %s, want A untouched", img)
	}

	if res := run(t, "release", "apply", "--spec", r.spec, "--env", "prod", "--approve", p.Hash); res.code != ExitOK {
		t.Fatalf("release apply --env prod of the promoted plan: exit %d\n%s", res.code, res.stderr)
	}
	d := r.web(t, r.prod)
	if d == nil || d.Spec.Template.Spec.Containers[0].Image != imageA || d.Spec.Replicas == nil || *d.Spec.Replicas != 3 {
		t.Fatalf("prod's live Deployment = %+v, want image A and 3 replicas", d)
	}
	pods := r.podImages(t, r.prod, 3)
	if len(pods) != 3 {
		t.Fatalf("prod has %d live pods (%q), want its own 3", len(pods), pods)
	}
	for _, img := range pods {
		if img != imageA {
			t.Errorf("a pod of prod runs %s, want A (staging's digest), not the spec's B", img)
		}
	}

	naive := planEnv(t, r.spec, "prod")
	if naive.Environment.Images["web"] != imageB || naive.Environment.Promoted != nil || naive.Counts()[plan.Update] != 1 {
		t.Errorf("a plain plan of prod after the promotion: images %v, promoted %+v, counts %v; want the spec's B, planned as an update", naive.Environment.Images, naive.Environment.Promoted, naive.Counts())
	}

	text := run(t, "promote", "--spec", r.spec, "--from", "staging", "--to", "prod")
	for _, want := range []string{"promote environment staging revision 1", "confirmed live in staging: 1 workload(s), 1 pod(s)",
		"images set (1):\n  web: " + imageB + " -> " + imageA, "(environment prod, images of staging revision 1)", "apply it with: piceli release apply --spec "} {
		if text.code != ExitOK || !strings.Contains(text.stdout, want) {
			t.Errorf("promote (text) after the promotion: exit %d, want %q in:\n%s%s", text.code, want, text.stdout, text.stderr)
		}
	}
}

// Staging never applied: promote exits 2. Then a pod someone else
// started with the labels of staging's Deployment, and a change someone
// else made to that Deployment (another field manager, as kubectl would),
// each disagree with staging's history: promote exits 2 naming the object
// and both images, and writes nothing to either namespace or either
// state.
func TestPromoteRefusesWhenStagingChangedLive(t *testing.T) {
	t.Parallel()
	sb := sandboxtest.Cluster(t)
	r := newPromoteRelease(t, sb, "")
	if res := run(t, "promote", "--spec", r.spec, "--from", "staging", "--to", "prod"); res.code != ExitRefused || !strings.Contains(res.stderr, "environment staging has no revision") {
		t.Fatalf("promote before staging was ever applied: exit %d, want %d saying so; stderr:\n%s", res.code, ExitRefused, res.stderr)
	}
	r.apply(t, "staging")
	r.setImage(t, imageB)
	d := r.web(t, r.staging)

	stray := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "stray", Namespace: r.staging, Labels: d.Spec.Selector.MatchLabels},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: imageB}}}}
	if _, err := sb.Clientset.CoreV1().Pods(r.staging).Create(t.Context(), stray, metav1.CreateOptions{FieldManager: "kubectl-run"}); err != nil {
		t.Fatalf("start a pod of web's labels as someone else: %v", err)
	}
	before := treeOf(t, r.dir)
	res := run(t, "promote", "--spec", r.spec, "--from", "staging", "--to", "prod")
	want := fmt.Sprintf(`pod %s/stray of Deployment/%s/web: container "web" runs %q, the revision ran %q`, r.staging, r.staging, imageB, imageA)
	if res.code != ExitRefused || !strings.Contains(res.stderr, "pods disagree with revision 1") || !strings.Contains(res.stderr, want) {
		t.Fatalf("promote with a stray pod: exit %d, want %d saying %q; stderr:\n%s", res.code, ExitRefused, want, res.stderr)
	}
	if err := sb.Clientset.CoreV1().Pods(r.staging).Delete(t.Context(), "stray", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}

	d = r.web(t, r.staging)
	d.Spec.Template.Spec.Containers[0].Image = imageB
	if _, err := sb.Clientset.AppsV1().Deployments(r.staging).Update(t.Context(), d, metav1.UpdateOptions{FieldManager: "kubectl-edit"}); err != nil {
		t.Fatalf("change staging's Deployment as someone else: %v", err)
	}
	res = run(t, "promote", "--spec", r.spec, "--from", "staging", "--to", "prod")
	want = fmt.Sprintf(`Deployment/%s/web: container "web" runs %q, the revision ran %q`, r.staging, imageB, imageA)
	if res.code != ExitRefused || !strings.Contains(res.stderr, "its live objects disagree with revision 1") || !strings.Contains(res.stderr, want) {
		t.Fatalf("promote after a live change: exit %d, want %d saying %q; stderr:\n%s", res.code, ExitRefused, want, res.stderr)
	}
	if after := treeOf(t, r.dir); !maps.Equal(before, after) {
		t.Errorf("the refused promote changed files:\nbefore %v\nafter  %v", keysOfTree(before), keysOfTree(after))
	}
	if r.web(t, r.prod) != nil {
		t.Error("the refused promote wrote Deployment web into prod")
	}
	if img := r.web(t, r.staging).Spec.Template.Spec.Containers[0].Image; img != imageB {
		t.Errorf("staging's Deployment runs %s after the refusal, want the other manager's B left alone", img)
	}
}

// treeOf maps every file under dir to its content.
func treeOf(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			out[p+"/"] = ""
			return err
		}
		data, err := os.ReadFile(p)
		out[p] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// keysOfTree lists a tree's paths, for a message.
func keysOfTree(tree map[string]string) []string {
	var out []string
	for k := range tree {
		out = append(out, k)
	}
	return out
}

// With state = "cluster", each environment's state in its own namespace,
// a promoted plan is applied from another machine: one whose state
// directories are empty until it pulls prod's shared state, where the
// plan came with promote's push. Prod gets staging's digest A and its own
// 3 replicas.
func TestPromoteWithSharedStateAppliesFromAnotherMachine(t *testing.T) {
	t.Parallel()
	sb := sandboxtest.Cluster(t)
	r := newPromoteRelease(t, sb, sharedState)
	r.apply(t, "staging")
	r.setImage(t, imageB)
	res := run(t, "promote", "--spec", r.spec, "--from", "staging", "--to", "prod", "-o", "json")
	var out promotionOutput
	if err := json.Unmarshal([]byte(res.stdout), &out); res.code != ExitOK || err != nil || out.Plan == nil || out.Plan.Hash == "" {
		t.Fatalf("promote with shared state: exit %d, %v\n%s%s", res.code, err, res.stdout, res.stderr)
	}

	other := t.TempDir()
	files := map[string]string{}
	for _, name := range []string{"release.toml", "infra.go", "go.mod", "go.sum"} {
		data, err := os.ReadFile(filepath.Join(r.dir, name))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = string(data)
	}
	writeFiles(t, other, files)
	spec := filepath.Join(other, "release.toml")
	if res := run(t, "release", "apply", "--spec", spec, "--env", "prod", "--approve", out.Plan.Hash); res.code != ExitOK {
		t.Fatalf("release apply --env prod of the promoted plan on another machine: exit %d\n%s", res.code, res.stderr)
	}
	d := r.web(t, r.prod)
	if d == nil || d.Spec.Template.Spec.Containers[0].Image != imageA || d.Spec.Replicas == nil || *d.Spec.Replicas != 3 {
		t.Fatalf("prod's live Deployment = %+v, want image A and 3 replicas", d)
	}
	for _, img := range r.podImages(t, r.prod, 3) {
		if img != imageA {
			t.Errorf("a pod of prod runs %s, want A", img)
		}
	}
}

// A run of a promoted plan stopped by Ctrl-C before its write is resumed
// with the promoted images: resume renders what the plan recorded, not
// the spec's B, so the approval check holds and prod gets A.
func TestPromotedRunIsResumed(t *testing.T) {
	t.Parallel()
	sb := sandboxtest.Cluster(t)
	r := newPromoteRelease(t, sb, "")
	r.apply(t, "staging")
	r.setImage(t, imageB)
	res := run(t, "promote", "--spec", r.spec, "--from", "staging", "--to", "prod", "-o", "json")
	var out promotionOutput
	if err := json.Unmarshal([]byte(res.stdout), &out); res.code != ExitOK || err != nil || out.Plan == nil {
		t.Fatalf("promote: exit %d, %v\n%s%s", res.code, err, res.stdout, res.stderr)
	}
	prod := &testRelease{stateDir: statedir.Environment(filepath.Join(r.dir, ".piceli-release"), "prod")}
	proc := startPiceli(t, apply.FailAfterIntent+":1:3s", "release", "apply", "--spec", r.spec, "--env", "prod", "--approve", out.Plan.Hash)
	prod.waitForJournal(t, "an intent", func(st journal.State) bool { return len(st.Steps) > 0 })
	proc.cmd.Process.Signal(os.Interrupt)
	if got := proc.wait(t, time.Minute); got != "exit 1" {
		t.Fatalf("the interrupted apply ended with %s, want exit 1; output:\n%s", got, proc.out.String())
	}
	if _, st := prod.latestRun(t); st.Status != journal.StatusStopped {
		t.Fatalf("prod's run is %s, want stopped", st.Status)
	}
	if res := run(t, "release", "resume", "--spec", r.spec, "--env", "prod"); res.code != ExitOK {
		t.Fatalf("release resume --env prod of the promoted run: exit %d\n%s", res.code, res.stderr)
	}
	d := r.web(t, r.prod)
	if d == nil || d.Spec.Template.Spec.Containers[0].Image != imageA || *d.Spec.Replicas != 3 {
		t.Fatalf("prod's live Deployment after the resume = %+v, want image A and 3 replicas", d)
	}
}
