package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/history"
	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
	"github.com/pynenc/piceli/release"
)

// The acceptance tests of the engine (issue 5) run the command tree
// in-process, and the built binary as a subprocess where a run must be
// killed, paused or held while another process acts.

// binary is the piceli binary built once per test binary run.
var binary struct {
	once      sync.Once
	dir, path string
	err       error
}

// TestMain stops the app tests' sandbox and removes the built binary
// after the tests; it runs minParallel parallel tests at once.
func TestMain(m *testing.M) {
	sandboxtest.AgentMain() // the agent of the real-node tests' sandboxes
	raiseParallel()
	keyDir, err := testStateKey()
	if err != nil {
		fmt.Fprintf(os.Stderr, "make the tests' state signing key: %v\n", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(keyDir)
	if err := stopAppsSandbox(); err != nil {
		fmt.Fprintf(os.Stderr, "stop the app tests' sandbox: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	if binary.dir != "" {
		os.RemoveAll(binary.dir)
	}
	os.Exit(code)
}

// piceliBinary builds cmd/piceli from this checkout with the failpoints
// compiled in (-tags piceli_failpoints), once.
func piceliBinary(t *testing.T) string {
	t.Helper()
	binary.once.Do(func() {
		binary.dir, binary.err = os.MkdirTemp("", "piceli-acceptance-")
		if binary.err != nil {
			return
		}
		binary.path, binary.err = buildPiceli(t, binary.dir, "-tags", "piceli_failpoints")
	})
	if binary.err != nil {
		t.Fatal(binary.err)
	}
	return binary.path
}

// buildPiceli runs go build of cmd/piceli from this checkout, with flags,
// into dir and returns the binary's path.
func buildPiceli(t *testing.T, dir string, flags ...string) (string, error) {
	path := filepath.Join(dir, "piceli")
	cmd := exec.Command("go", append(append([]string{"build"}, flags...), "-o", path, "./cmd/piceli")...)
	cmd.Dir = repoRoot(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s ./cmd/piceli: %v\n%s", strings.Join(flags, " "), err, out)
	}
	return path, nil
}

// proc is piceli running as a subprocess.
type proc struct {
	cmd  *exec.Cmd
	out  syncBuffer // stdout and stderr together
	done chan struct{}
}

// startPiceli starts the built binary with args; failpoint, when not empty,
// arms apply.FailpointEnv. The process is killed when the test ends.
func startPiceli(t *testing.T, failpoint string, args ...string) *proc {
	t.Helper()
	return startBinary(t, piceliBinary(t), failpoint, args...)
}

// startBinary is startPiceli for the piceli binary at path.
func startBinary(t *testing.T, path, failpoint string, args ...string) *proc {
	t.Helper()
	p := &proc{cmd: exec.Command(path, args...), done: make(chan struct{})}
	p.cmd.Env = os.Environ()
	if failpoint != "" {
		p.cmd.Env = append(p.cmd.Env, apply.FailpointEnv+"="+failpoint)
	}
	p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() { p.cmd.Process.Kill(); <-p.done })
	return p
}

// waitForOutput waits, at most d, until the process has printed want.
func (p *proc) waitForOutput(t *testing.T, want string, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !strings.Contains(p.out.String(), want) {
		select {
		case <-p.done:
			t.Fatalf("piceli ended before printing %q; output:\n%s", want, p.out.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("piceli did not print %q within %s; output:\n%s", want, d, p.out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// wait waits for the process to end, at most d, and describes how it
// ended: "killed" for SIGKILL, else "exit N".
func (p *proc) wait(t *testing.T, d time.Duration) string {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(d):
		p.cmd.Process.Kill()
		<-p.done
		t.Fatalf("piceli %s still ran after %s; output:\n%s", strings.Join(p.cmd.Args[1:], " "), d, p.out.String())
	}
	ws := p.cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() && ws.Signal() == syscall.SIGKILL {
		return "killed"
	}
	return fmt.Sprintf("exit %d", ws.ExitStatus())
}

// testRelease is a YAML release in a fresh sandbox namespace.
type testRelease struct {
	sb       *sandboxtest.Sandbox
	ns       string
	name     string // the release's name
	spec     string // release.toml
	stateDir string
}

// newRelease writes a release named demo targeting a fresh namespace:
// manifests by file name, and extra lines for its [release] table.
func newRelease(t *testing.T, sb *sandboxtest.Sandbox, extra string, manifests map[string]string) *testRelease {
	t.Helper()
	return newReleaseIn(t, sb, sb.Namespace(t), extra, manifests)
}

// newReleaseIn is newRelease targeting namespace ns, which need not exist.
func newReleaseIn(t *testing.T, sb *sandboxtest.Sandbox, ns, extra string, manifests map[string]string) *testRelease {
	t.Helper()
	dir := t.TempDir()
	r := &testRelease{sb: sb, ns: ns, name: "demo", spec: filepath.Join(dir, "release.toml"), stateDir: filepath.Join(dir, ".piceli-release")}
	files := map[string]string{"release.toml": fmt.Sprintf("[target]\nkubeconfig = %q\ncontext = %q\nnamespace = %q\n\n[release]\nname = \"demo\"\ncomposition = \"manifests\"\n%s", sb.Kubeconfig, sb.Context, r.ns, withTestState(extra))}
	for name, body := range manifests {
		files["manifests/"+name] = body
	}
	writeFiles(t, dir, files)
	return r
}

// setManifest replaces one manifest of the release.
func (r *testRelease) setManifest(t *testing.T, name, body string) {
	t.Helper()
	writeFiles(t, filepath.Dir(r.spec), map[string]string{"manifests/" + name: body})
}

// fieldManager is the default field manager of a release named demo.
const fieldManager = "piceli-demo"

// smallManifests is a release of four waves (its Namespace, three
// ConfigMaps, a Service, a Deployment), fast to apply on the sandbox.
func smallManifests() map[string]string {
	return map[string]string{
		"cm-a.yaml":   configMapYAML("a", "value", "1"),
		"cm-b.yaml":   configMapYAML("b", "value", "1"),
		"cm-c.yaml":   configMapYAML("c", "value", "1"),
		"svc.yaml":    "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  selector:\n    app: web\n  ports:\n  - port: 80\n",
		"deploy.yaml": deploymentYAML("web", 1, ""),
	}
}

func configMapYAML(name, key, value string) string {
	return fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\ndata:\n  %s: %q\n", name, key, value)
}

// deploymentYAML is a Deployment of fake pods labelled app=name; podSpec
// adds lines to its pod spec (indented by six spaces).
func deploymentYAML(name string, replicas int, podSpec string) string {
	return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: %[1]s
spec:
  replicas: %[2]d
  selector:
    matchLabels:
      app: %[1]s
  template:
    metadata:
      labels:
        app: %[1]s
    spec:
%[3]s      containers:
      - name: %[1]s
        image: example.invalid/%[1]s:1
`, name, replicas, podSpec)
}

// plan runs "release plan -o json" and returns the stored plan.
func (r *testRelease) plan(t *testing.T) *plan.Plan {
	t.Helper()
	res := run(t, "release", "plan", "--spec", r.spec, "-o", "json")
	if res.code != ExitOK {
		t.Fatalf("release plan: exit %d\n%s", res.code, res.stderr)
	}
	var p plan.Plan
	if err := json.Unmarshal([]byte(res.stdout), &p); err != nil || p.Hash == "" {
		t.Fatalf("release plan -o json: %v (hash %q)\n%s", err, p.Hash, res.stdout)
	}
	return &p
}

// apply runs "release apply --approve" for p in-process and wants exit 0.
func (r *testRelease) apply(t *testing.T, p *plan.Plan) result {
	t.Helper()
	res := run(t, "release", "apply", "--spec", r.spec, "--approve", p.Hash)
	if res.code != ExitOK {
		t.Fatalf("release apply --approve: exit %d\n%s", res.code, res.stderr)
	}
	return res
}

// latestRun returns the release's latest run and its replayed journal.
func (r *testRelease) latestRun(t *testing.T) (string, journal.State) {
	t.Helper()
	id, err := apply.LatestRun(r.stateDir)
	if err != nil {
		t.Fatal(err)
	}
	st, _, err := apply.Inspect(r.stateDir, id)
	if err != nil {
		t.Fatalf("Inspect(run %s) = %v", id, err)
	}
	return id, st
}

// waitForJournal polls the run's journal until ok holds for its state.
func (r *testRelease) waitForJournal(t *testing.T, what string, ok func(journal.State) bool) string {
	t.Helper()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	timeout := time.After(30 * time.Second)
	for {
		if id, err := apply.LatestRun(r.stateDir); err == nil {
			if st, _, err := apply.Inspect(r.stateDir, id); err == nil && ok(st) {
				return id
			}
		}
		select {
		case <-tick.C:
		case <-timeout:
			t.Fatalf("the journal never showed %s", what)
		}
	}
}

// writes counts, per step, the journal's records saying a write of the
// step reached the cluster: applied outcomes and applied settlements.
func writes(t *testing.T, stateDir, run string) map[int]int {
	t.Helper()
	recs, _, err := journal.Read(apply.JournalPath(stateDir, run))
	if err != nil {
		t.Fatalf("journal.Read(run %s) = %v", run, err)
	}
	if _, err := journal.Replay(recs); err != nil {
		t.Fatalf("journal.Replay(run %s) = %v; it refuses a second intent for an applied step", run, err)
	}
	out := map[int]int{}
	for _, rec := range recs {
		if (rec.Type == journal.Outcome || rec.Type == journal.Settled) && rec.Result == journal.ResultApplied {
			out[rec.Step]++
		}
	}
	return out
}

// assertFinished checks that the release's latest run finished with every
// step of p applied exactly once, a revision recorded, every declared
// object present and no undeclared object of the release left.
func (r *testRelease) assertFinished(t *testing.T, p *plan.Plan) {
	t.Helper()
	id, st := r.latestRun(t)
	if st.Status != journal.StatusFinished || st.Plan != p.Hash {
		t.Fatalf("run %s: status %s of plan %s, want finished of %s", id, st.Status, st.Plan, p.Hash)
	}
	n := writes(t, r.stateDir, id)
	for i, s := range p.Steps {
		want := 1
		if s.Action == plan.NoOp {
			want = 0
		}
		if n[i] != want || (want == 1 && st.Steps[i].Status != journal.StepApplied) {
			t.Errorf("step %d (%s %s): %d applied writes in the journal, status %q; want %d", i, s.Action, s.Ref, n[i], st.Steps[i].Status, want)
		}
	}
	revs, err := history.List(r.stateDir)
	if err != nil || len(revs) == 0 || revs[len(revs)-1].Run != id {
		t.Errorf("history.List() = %d revisions, %v; want the last from run %s", len(revs), err, id)
	}
	r.assertDeclared(t, p)
}

// assertDeclared checks that every object p declares exists and that no
// object labelled with the release, of a kind p declares, is undeclared.
func (r *testRelease) assertDeclared(t *testing.T, p *plan.Plan) {
	t.Helper()
	declared := map[string]bool{}
	kinds := map[schema.GroupVersionResource]bool{}
	for _, s := range p.Steps {
		gvr := stepGVR(s)
		declared[gvr.Resource+"/"+s.Ref.Namespace+"/"+s.Ref.Name] = true
		if _, err := r.get(t, s); err != nil {
			t.Errorf("%s: %v", s.Ref, err)
		}
		if s.Ref.Namespace != "" {
			kinds[gvr] = true
		}
	}
	for gvr := range kinds {
		list, err := r.sb.Dynamic.Resource(gvr).Namespace(r.ns).List(t.Context(), metav1.ListOptions{LabelSelector: object.ReleaseLabel + "=" + r.name})
		if err != nil {
			t.Fatalf("list %s: %v", gvr.Resource, err)
		}
		for _, o := range list.Items {
			if !declared[gvr.Resource+"/"+r.ns+"/"+o.GetName()] {
				t.Errorf("orphan: %s/%s/%s carries the release label and the plan does not declare it", gvr.Resource, r.ns, o.GetName())
			}
		}
	}
}

func stepGVR(s plan.Step) schema.GroupVersionResource {
	gv, _ := schema.ParseGroupVersion(s.APIVersion)
	return gv.WithResource(s.Resource)
}

// get reads the live object of a step.
func (r *testRelease) get(t *testing.T, s plan.Step) (*unstructured.Unstructured, error) {
	t.Helper()
	res := r.sb.Dynamic.Resource(stepGVR(s))
	if s.Ref.Namespace != "" {
		return res.Namespace(s.Ref.Namespace).Get(t.Context(), s.Ref.Name, metav1.GetOptions{})
	}
	return res.Get(t.Context(), s.Ref.Name, metav1.GetOptions{})
}

// gone reports whether a step's object is deleted or being deleted.
func (r *testRelease) gone(t *testing.T, s plan.Step) bool {
	t.Helper()
	u, err := r.get(t, s)
	if apierrors.IsNotFound(err) {
		return true
	}
	if err != nil {
		t.Fatalf("get %s: %v", s.Ref, err)
	}
	return u.GetDeletionTimestamp() != nil
}

// machineSigner is the tests' machine key as a state_signers entry, and
// signersLine the [release] line trusting it; testStateKey sets both.
var machineSigner, signersLine string

// testStateKey makes the signing key of "this machine" for every test of
// the package, in a temporary directory named by PICELI_STATE_KEY_FILE
// (which the built binary inherits too), so that no test reads or writes
// the user's own key; and sets signersLine and sharedState to trust it.
// It returns the directory to remove.
func testStateKey() (string, error) {
	dir, err := os.MkdirTemp("", "piceli-cli-state-key-")
	if err != nil {
		return "", err
	}
	os.Setenv(stateKeyEnv, filepath.Join(dir, "state.key"))
	k, err := release.MachineStateKey("", "cli tests")
	if err != nil {
		return dir, err
	}
	machineSigner = k.Signer
	signersLine = fmt.Sprintf("state_signers = [%q]\n", k.Signer)
	sharedState = "state = \"cluster\"\n" + signersLine
	return dir, nil
}

// stateKeyEnv names this machine's state signing key file.
const stateKeyEnv = "PICELI_STATE_KEY_FILE"

// testStateEnv, set to "cluster", runs every release these tests write
// with [release] state = "cluster" unless the test names a mode itself:
// PICELI_TEST_STATE=cluster go test ./internal/cli runs the suite against
// shared state, to show it behaves as local state does.
const testStateEnv = "PICELI_TEST_STATE"

// withTestState adds the state mode of testStateEnv to extra lines of a
// [release] table.
func withTestState(extra string) string {
	if mode := os.Getenv(testStateEnv); mode != "" && !strings.Contains(extra, "state =") {
		return fmt.Sprintf("state = %q\n", mode) + signersLine + extra // first: extra may open [[checks]]
	}
	return extra
}
