package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/sandbox"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// canaryEnv is the environment variable of the env source.
const canaryEnv = "PICELI_TEST_CANARY_ENV"

// compensateFast makes a failed apply undo itself after 8s of waiting.
const compensateFast = "on_failure = \"compensate\"\nready_timeout = \"8s\"\n"

// maxSweptFile is how much of one file the sweep reads.
const maxSweptFile = 16 << 20

// A unique canary in every source kind (a file, an environment variable,
// a cluster Secret, a generated value and a generated TLS key) goes through
// plan, diff, apply, a failed apply, stop, resume, rollback, status,
// history and render, every cluster command with --verbose (client-go's
// request log). Then stdout and stderr of every command, every file the
// release wrote outside its private store (plans, journals, history, the
// digest key), the rendered files, the composition cache and every file
// created in the temporary directory are searched for each canary raw,
// base64, hex, URL- and JSON-escaped: no hit. The live Secrets carry no
// last-applied-configuration and no annotation with a value.
func TestSecretCanariesNeverLeak(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	piceliBinary(t) // built before TMPDIR moves, outside the sweep
	realTmp := os.TempDir()
	tmpBefore := dirNames(t, realTmp)

	r := newSecretRelease(t, sb, compensateFast, []secretKey{
		{key: "gen", source: `app.Generated("gen", 40)`},
		{key: "file", source: `app.FromFile("file", "secret/pw.txt")`},
		{key: "env", source: fmt.Sprintf("app.FromEnv(%q, %q)", "env", canaryEnv)},
		{key: "cluster", source: `app.FromCluster("cluster", "upstream", "token")`},
	}, brokenDeployment(t, sb))
	renderDir, tmp, cache := t.TempDir(), t.TempDir(), t.TempDir()
	t.Setenv("TMPDIR", tmp)
	t.Setenv("PICELI_CACHE_DIR", cache)
	canaries := map[string]string{"file": canary(t, "file"), "file v2": canary(t, "file2"), "env": canary(t, "env"), "cluster": canary(t, "cluster")}
	t.Setenv(canaryEnv, canaries["env"])
	r.writeSecretFile(t, "secret/pw.txt", canaries["file"])
	upstream := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "upstream"}, Data: map[string][]byte{"token": []byte(canaries["cluster"])}}
	if _, err := sb.Clientset.CoreV1().Secrets(r.ns).Create(t.Context(), upstream, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	var out outputs
	piceli := func(want int, args ...string) result {
		t.Helper()
		res := run(t, append([]string{"--verbose"}, args...)...)
		out.add(strings.Join(args[:2], " "), res.stdout+res.stderr)
		if res.code != want {
			t.Fatalf("piceli %s: exit %d, want %d\n%s%s", strings.Join(args, " "), res.code, want, res.stdout, res.stderr)
		}
		return res
	}
	planHash := func() string {
		t.Helper()
		var p plan.Plan
		if err := json.Unmarshal([]byte(piceli(ExitOK, "release", "plan", "--spec", r.spec, "-o", "json").stdout), &p); err != nil || p.Hash == "" {
			t.Fatalf("release plan -o json: %v", err)
		}
		return p.Hash
	}

	// plan, diff and apply: revision 1.
	piceli(ExitOK, "release", "plan", "--spec", r.spec)
	piceli(ExitOK, "release", "diff", "--spec", r.spec)
	piceli(ExitOK, "release", "diff", "--spec", r.spec, "-o", "json")
	first := planHash()
	piceli(ExitOK, "release", "apply", "--spec", r.spec, "--approve", first)
	// The generated values are read for the search list only; this output
	// is kept out of the sweep.
	canaries["generated"] = revealed(t, r.spec, secretName, "")["gen"]
	canaries["generated tls.key"], canaries["generated tls.key, a line"] = revealedKey(t, r.spec, "app-tls")
	piceli(ExitOK, "release", "secret", "show", secretName, "--spec", r.spec)

	// A failed apply: the Deployment broken cannot pull its image, and the
	// run is compensated.
	r.setBroken(t, true, compensateFast)
	failed := piceli(ExitFailed, "release", "apply", "--spec", r.spec, "--approve", planHash())
	if !strings.Contains(failed.stderr, "ImagePullBackOff") {
		t.Errorf("the failed apply does not say why:\n%s", failed.stderr)
	}

	// A new file value applied by a run that is stopped and resumed:
	// revision 2.
	r.setBroken(t, false, compensateFast)
	r.writeSecretFile(t, "secret/pw.txt", canaries["file v2"])
	second := planHash()
	proc := startPiceli(t, apply.FailAfterIntent+":1:4s", "--verbose", "release", "apply", "--spec", r.spec, "--approve", second)
	r.waitForJournal(t, "the intents of the second apply", func(st journal.State) bool { return st.Plan == second && len(st.Steps) > 0 })
	piceli(ExitOK, "release", "stop", "--spec", r.spec)
	if got := proc.wait(t, time.Minute); got != "exit 1" {
		t.Fatalf("the stopped apply ended with %s, want exit 1:\n%s", got, proc.out.String())
	}
	out.add("release apply (stopped, subprocess)", proc.out.String())
	piceli(ExitOK, "release", "resume", "--spec", r.spec)

	// Rollback to revision 1: revision 3.
	propose := piceli(ExitApproval, "release", "rollback", "--spec", r.spec)
	m := regexp.MustCompile(`--approve ([0-9a-f]{12})`).FindStringSubmatch(propose.stderr)
	if m == nil {
		t.Fatalf("rollback does not name the hash to approve:\n%s", propose.stderr)
	}
	piceli(ExitOK, "release", "rollback", "--spec", r.spec, "--approve", m[1])
	if live := r.liveSecretData(t, secretName); live["file"] != canaries["file"] {
		t.Errorf("after the rollback the live Secret does not hold the first file value")
	}

	piceli(ExitOK, "release", "run", "--spec", r.spec)
	piceli(ExitOK, "release", "history", "--spec", r.spec)
	piceli(ExitOK, "release", "history", "--spec", r.spec, "-o", "json")
	// Every run (applied, compensated, stopped and resumed, rolled back)
	// archived itself; the archives are swept with the state directory,
	// and so are an export and what the lens prints of it.
	runs, err := os.ReadDir(filepath.Join(r.stateDir, "runs"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range runs {
		if _, err := os.Stat(filepath.Join(r.stateDir, "runs", d.Name(), "archive.json")); d.IsDir() && err != nil {
			t.Errorf("run %s has no session archive: %v", d.Name(), err)
		}
	}
	archiveDir := filepath.Join(r.dir, "exported")
	piceli(ExitOK, "release", "archive", "--spec", r.spec, "--out", archiveDir)
	archivePath := onlyFile(t, archiveDir)
	lens := run(t, "observe", "status", "--archive", archivePath, "--kubeconfig", sb.Kubeconfig, "--context", sb.Context, "-o", "json")
	out.add("observe status", lens.stdout+lens.stderr)
	piceli(ExitOK, "render", "--spec", r.spec)
	piceli(ExitOK, "render", "--spec", r.spec, "-o", "json")
	piceli(ExitOK, "render", "--spec", r.spec, "--out", renderDir)

	// The sweep covers what --verbose adds: the request lines of the
	// Secret's writes, not only of its dry-runs.
	write := regexp.MustCompile(`verb="PATCH" url="https://[^"]*/api/v1/namespaces/` + r.ns + `/secrets/` + secretName + `\?fieldManager=`)
	if !write.MatchString(out.all()) {
		t.Errorf("no command logged the write of Secret %s: --verbose did not reach client-go's request log", secretName)
	}
	for _, o := range out {
		if l := leaks([]byte(o.text), canaries); len(l) > 0 {
			t.Errorf("the output of %s holds secret values: %s", o.name, strings.Join(l, "; "))
		}
	}
	store := filepath.Join(r.stateDir, "secrets")
	swept := sweepDir(t, r.dir, canaries, filepath.Join(r.dir, "secret"), store)
	for _, want := range []string{"plans", "runs", "history"} {
		if !slices.ContainsFunc(swept, func(p string) bool { return strings.HasPrefix(p, filepath.Join(".piceli-release", want)+"/") }) {
			t.Errorf("the sweep read no file of state_dir/%s; it read %q", want, swept)
		}
	}
	if len(sweepDir(t, renderDir, canaries)) == 0 || len(sweepDir(t, cache, canaries)) == 0 {
		t.Errorf("the sweep read no rendered file or no file of the composition cache")
	}
	sweepDir(t, tmp, canaries)
	testRoot := filepath.Dir(r.dir)
	for _, name := range newNames(tmpBefore, dirNames(t, realTmp)) {
		if p := filepath.Join(realTmp, name); p != testRoot && p != binary.dir && !isSandboxDir(p) {
			sweepDir(t, p, canaries)
		}
	}
	assertStoreHolds(t, store, canaries)
	assertLiveObjectsClean(t, r, canaries)
}

// isSandboxDir reports whether dir holds a sandbox of another test (a
// real node's, started meanwhile by a test of another package): its
// cluster state is the sandbox's, and its network namespaces cannot be
// read as files.
func isSandboxDir(dir string) bool {
	if sandboxtest.IsRealNodeTop(dir) {
		return true
	}
	info, err := os.Stat(filepath.Join(dir, "kwok", "clusters"))
	return err == nil && info.IsDir()
}

// revealedKey returns the PEM private key of a generated TLS secret, as
// "release secret show --reveal --stdout" prints it, and its first line of
// base64.
func revealedKey(t *testing.T, spec, name string) (string, string) {
	t.Helper()
	res := run(t, "release", "secret", "show", name, "--spec", spec, "--reveal", "--stdout")
	m := regexp.MustCompile(`(?s)tls\.key=(-----BEGIN PRIVATE KEY-----\n([A-Za-z0-9+/=]{40,})\n.*?-----END PRIVATE KEY-----\n)`).FindStringSubmatch(res.stdout)
	if res.code != ExitOK || m == nil {
		t.Fatalf("release secret show %s --reveal --stdout: exit %d, no PEM private key\n%s", name, res.code, res.stderr)
	}
	return m[1], m[2]
}

// brokenDeployment is composition code adding, when [values] broken is
// "yes", a Deployment that reads app-secrets and whose pods kwok keeps in
// ImagePullBackOff; the Deployment web mounts a second Secret, app-tls, a
// generated TLS pair.
func brokenDeployment(t *testing.T, sb *sandboxtest.Sandbox) goComposition {
	t.Helper()
	var annotations strings.Builder
	for k, v := range sb.SimulateAnnotations(t, sandbox.SimulateImagePullBackOff) {
		fmt.Fprintf(&annotations, "%q: %q, ", k, v)
	}
	return goComposition{
		imports: "\tappsv1 \"k8s.io/api/apps/v1\"\n\tcorev1 \"k8s.io/api/core/v1\"\n\tmetav1 \"k8s.io/apimachinery/pkg/apis/meta/v1\"\n",
		web:     "\t\tapp.MountSecret(a.Secret(\"app-tls\", app.GeneratedTLS(\"web.example.com\")), \"/etc/tls\"),\n",
		body: fmt.Sprintf(`	if v, _ := ctx.LookupValue("broken"); v == "yes" {
		labels := map[string]string{"app": "broken"}
		a.Objects(&appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: "broken"},
			Spec: appsv1.DeploymentSpec{
				Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: labels, Annotations: map[string]string{%s}},
					Spec: corev1.PodSpec{Containers: []corev1.Container{{
						Name: "broken", Image: ctx.Image("web"),
						Env: []corev1.EnvVar{{Name: "GEN", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
							LocalObjectReference: corev1.LocalObjectReference{Name: %q}, Key: "gen",
						}}}},
					}}},
				},
			},
		})
	}
`, annotations.String(), secretName),
	}
}

// output is what one command printed, stdout and stderr together.
type output struct{ name, text string }

type outputs []output

func (o *outputs) add(name, text string) { *o = append(*o, output{name, text}) }

func (o outputs) all() string {
	var b strings.Builder
	for _, x := range o {
		b.WriteString(x.text)
	}
	return b.String()
}

// sweepDir searches every file under root, except under skip, for the
// canaries, reading at most maxSweptFile bytes of each, and returns the
// paths it read relative to root.
func sweepDir(t *testing.T, root string, canaries map[string]string, skip ...string) []string {
	t.Helper()
	var swept []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) {
				return nil // a temporary file removed while the walk ran
			}
			return err
		}
		for _, s := range skip {
			if p == s {
				return filepath.SkipDir
			}
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := readCapped(p)
		if err != nil {
			return err
		}
		if l := leaks(data, canaries); len(l) > 0 {
			t.Errorf("%s holds secret values: %s", p, strings.Join(l, "; "))
		}
		rel, _ := filepath.Rel(root, p)
		swept = append(swept, rel)
		return nil
	})
	if err != nil {
		t.Errorf("sweep %s: %v", root, err)
	}
	return swept
}

func readCapped(p string) ([]byte, error) {
	f, err := os.Open(p)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxSweptFile))
}

// dirNames lists the names in dir.
func dirNames(t *testing.T, dir string) map[string]bool {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, e := range entries {
		names[e.Name()] = true
	}
	return names
}

func newNames(before, after map[string]bool) []string {
	var out []string
	for n := range after {
		if !before[n] {
			out = append(out, n)
		}
	}
	return out
}

// assertStoreHolds checks that the private store, which holds values by
// design, holds every canary in a form the sweep finds: the sweep's search
// works, and the store is where the values went. Its modes are checked
// too.
func assertStoreHolds(t *testing.T, store string, canaries map[string]string) {
	t.Helper()
	var all []byte
	err := filepath.WalkDir(store, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		st, err := d.Info()
		if err != nil {
			return err
		}
		if want := map[bool]fs.FileMode{true: fs.ModeDir | 0o700, false: 0o600}[d.IsDir()]; st.Mode() != want {
			t.Errorf("store %s: mode %v, want %v", p, st.Mode(), want)
		}
		if !d.IsDir() {
			data, err := os.ReadFile(p)
			all = append(all, data...)
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range canaries {
		if len(leaks(all, map[string]string{name: v})) == 0 {
			t.Errorf("the private store does not hold the %s canary in any form the sweep looks for", name)
		}
	}
}

// assertLiveObjectsClean checks the live Secrets of the release (all but
// their data) and every Deployment, ReplicaSet, Pod and Event of the
// namespace for canaries, and that the Secrets carry no
// last-applied-configuration.
func assertLiveObjectsClean(t *testing.T, r *secretRelease, canaries map[string]string) {
	t.Helper()
	ctx, ns, cs := t.Context(), r.ns, r.sb.Clientset
	var objs []any
	for _, name := range []string{secretName, "app-tls"} {
		s, err := cs.CoreV1().Secrets(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := s.Annotations[corev1.LastAppliedConfigAnnotation]; ok {
			t.Errorf("Secret %s carries %s", name, corev1.LastAppliedConfigAnnotation)
		}
		for k, v := range s.Annotations {
			if l := leaks([]byte(k+"="+v), canaries); len(l) > 0 {
				t.Errorf("Secret %s annotation %s holds secret values: %s", name, k, strings.Join(l, "; "))
			}
		}
		s.Data, s.StringData = nil, nil
		objs = append(objs, s)
	}
	deploys, err1 := cs.AppsV1().Deployments(ns).List(ctx, metav1.ListOptions{})
	sets, err2 := cs.AppsV1().ReplicaSets(ns).List(ctx, metav1.ListOptions{})
	pods, err3 := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	events, err4 := cs.CoreV1().Events(ns).List(ctx, metav1.ListOptions{})
	for _, err := range []error{err1, err2, err3, err4} {
		if err != nil {
			t.Fatal(err)
		}
	}
	objs = append(objs, deploys, sets, pods, events)
	for _, o := range objs {
		data, _ := json.Marshal(o)
		if l := leaks(data, canaries); len(l) > 0 {
			t.Errorf("live %T holds secret values: %s", o, strings.Join(l, "; "))
		}
	}
}
