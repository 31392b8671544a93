package acceptance

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/cli"
	"github.com/pynenc/piceli/internal/faultproxy"
	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
	"github.com/pynenc/piceli/release"
)

// env is one scenario's world: a fresh namespace, a release of its own in
// a directory of its own whose kubeconfig reaches the sandbox through a
// fault proxy of its own, a canary as the value of the release's Secret,
// and a record of what the scenario's commands printed and started, for
// the after-checks.
type env struct {
	t        *testing.T
	sb       *sandboxtest.Sandbox
	ns       string
	name     string // the release's name, unique to the scenario
	dir      string // holds release.toml, manifests/ and the state directory
	spec     string
	stateDir string
	tmp      string // TMPDIR of the scenario's subprocesses
	proxy    *faultproxy.Proxy
	canary   string
	row      *row
	covers   []string // what the scenario claims to exercise

	// What release.toml says (writeSpec): the kubeconfig, its context,
	// the readiness timeout and more lines for [release].
	kubeconfig, kubeContext, readyTimeout, extra string

	mu    sync.Mutex
	out   []output
	procs []*proc
	// copies are copies of dir the scenario made; the canary sweep reads
	// them too.
	copies []string

	// mark is where, in the proxy's log, the writes the after-checks count
	// start: a scenario that applies an earlier revision first moves it.
	mark int
	// want is the state the scenario must end in.
	want terminal
	// before is what the cluster and the state directory held before a
	// refused scenario's commands ran (for want == untouched).
	before *snapshot
}

// terminal is the state a scenario ends in, checked by afterChecks.
type terminal string

const (
	// reachedDesired: a fresh diff of the release has only no-op steps and
	// the latest run finished.
	reachedDesired terminal = "desired state"
	// undone: nothing the plan created is left in the cluster and the
	// latest run ended compensated.
	undone terminal = "compensated"
	// untouched: every command was refused; the cluster and the state
	// directory hold what they held before.
	untouched terminal = "unchanged"
)

// envOptions shape a scenario's release.
type envOptions struct {
	extra        string            // more lines for the [release] table
	readyTimeout string            // release.ready_timeout; "" means 30s
	manifests    map[string]string // nil: the default release (manifests)
}

// releaseContext is the context name of the proxy kubeconfig.
const releaseContext = "acceptance"

// newEnv sets up a scenario's release. The proxy is closed, and proven
// gone, when the scenario ends.
func newEnv(t *testing.T, sb *sandboxtest.Sandbox, opts envOptions) *env {
	t.Helper()
	e := &env{t: t, sb: sb, ns: sb.Namespace(t), name: "acc-" + randomHex(t, 4), dir: t.TempDir(), tmp: t.TempDir(), want: reachedDesired}
	e.canary = canaryValue(t)
	e.spec, e.stateDir = filepath.Join(e.dir, "release.toml"), filepath.Join(e.dir, ".piceli-release")
	p, err := faultproxy.Start(sb.RESTConfig)
	if err != nil {
		t.Fatal(err)
	}
	e.proxy = p
	t.Cleanup(func() { closeProxy(t, p) })
	e.kubeconfig, e.kubeContext, e.readyTimeout, e.extra = e.proxyKubeconfig(), releaseContext, opts.readyTimeout, opts.extra
	if e.readyTimeout == "" {
		e.readyTimeout = "30s"
	}
	writeFile(t, e.kubeconfig, proxyKubeconfig(p.URL()))
	e.writeSpec()
	m := opts.manifests
	if m == nil {
		m = manifests(e.canary)
	}
	for name, body := range m {
		e.setManifest(name, body)
	}
	return e
}

// proxyKubeconfig is the path of the kubeconfig that reaches the proxy.
func (e *env) proxyKubeconfig() string { return filepath.Join(e.dir, "proxy.kubeconfig") }

// writeSpec writes release.toml from the env's fields.
func (e *env) writeSpec() {
	e.t.Helper()
	spec := fmt.Sprintf("[target]\nkubeconfig = %q\ncontext = %q\nnamespace = %q\n\n[release]\nname = %q\ncomposition = \"manifests\"\nready_timeout = %q\n%s",
		e.kubeconfig, e.kubeContext, e.ns, e.name, e.readyTimeout, e.extra)
	writeFile(e.t, e.spec, spec)
}

// copyDir copies the release's directory (spec, manifests, state
// directory, stored plans and key included) to a fresh one, as a second
// operator with the same files would have it.
func (e *env) copyDir() string {
	e.t.Helper()
	dir := e.t.TempDir()
	if out, err := exec.Command("cp", "-a", e.dir+"/.", dir).CombinedOutput(); err != nil {
		e.t.Fatalf("copy %s: %v\n%s", e.dir, err, out)
	}
	e.copies = append(e.copies, dir)
	return dir
}

// setManifest writes (or replaces) one manifest of the release.
func (e *env) setManifest(name, body string) {
	e.t.Helper()
	writeFile(e.t, filepath.Join(e.dir, "manifests", name), body)
}

// proxyKubeconfig reaches the proxy at url: plain HTTP on loopback, no
// credentials (the proxy adds the sandbox's).
func proxyKubeconfig(url string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: %[2]s
  cluster:
    server: %[1]s
contexts:
- name: %[2]s
  context:
    cluster: %[2]s
    user: %[2]s
users:
- name: %[2]s
  user: {}
`, url, releaseContext)
}

// manifests is the default release: three ConfigMaps and a Secret holding
// the canary (wave config), a Service (wave services) and a Deployment of
// one fake pod (wave workloads).
func manifests(canary string) map[string]string {
	return map[string]string{
		"cm-a.yaml":   configMap("a", "1"),
		"cm-b.yaml":   configMap("b", "1"),
		"cm-c.yaml":   configMap("c", "1"),
		"secret.yaml": secretYAML("s", canary),
		"svc.yaml":    "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  selector:\n    app: web\n  ports:\n  - port: 80\n",
		"deploy.yaml": deployment("web", ""),
	}
}

// shape is what the default release's plan holds, for the failpoint pass
// counts: steps per wave in order. killScenarios checks a real plan
// against it.
var shape = []int{4, 1, 1}

func configMap(name, value string) string {
	return fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\ndata:\n  value: %q\n", name, value)
}

func secretYAML(name, value string) string {
	quoted, _ := json.Marshal(value) // a JSON string is a YAML string
	return fmt.Sprintf("apiVersion: v1\nkind: Secret\nmetadata:\n  name: %s\nstringData:\n  token: %s\n", name, quoted)
}

// deployment is a Deployment of one fake pod labelled app=name, with
// annotations (YAML lines indented by eight spaces) on its pod template.
func deployment(name, annotations string) string {
	if annotations != "" {
		annotations = "      annotations:\n" + annotations
	}
	return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: %[1]s
spec:
  replicas: 1
  selector:
    matchLabels:
      app: %[1]s
  template:
    metadata:
      labels:
        app: %[1]s
%[2]s    spec:
      containers:
      - name: %[1]s
        image: example.invalid/%[1]s:1
`, name, annotations)
}

// simulated is the pod template annotation (YAML lines for deployment)
// that makes kwok report value (an image that cannot be pulled, a crash
// loop) for the pods.
func simulated(c *sc, value string) string {
	var b strings.Builder
	for k, v := range c.sb.SimulateAnnotations(c.t, value) {
		fmt.Fprintf(&b, "        %s: %q\n", k, v)
	}
	return b.String()
}

// result is what an in-process command returned.
type result struct {
	code           int
	stdout, stderr string
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
}

// output is what one command printed, kept for the canary sweep.
type output struct{ name, text string }

func (e *env) record(name, text string) {
	e.mu.Lock()
	e.out = append(e.out, output{name, text})
	e.mu.Unlock()
}

// piceli runs the command tree in-process with args.
func (e *env) piceli(args ...string) result {
	e.t.Helper()
	var stdout, stderr bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	code := cli.Run(ctx, args, &stdout, &stderr)
	res := result{code: code, stdout: stdout.String(), stderr: stderr.String()}
	e.record(strings.Join(args, " "), res.stdout+res.stderr)
	return res
}

// release runs "release SUB --spec SPEC ARGS...".
func (e *env) release(sub string, args ...string) result {
	e.t.Helper()
	return e.piceli(append([]string{"release", sub, "--spec", e.spec}, args...)...)
}

// wantExit runs a release command and fails the scenario unless it exits with
// code.
func (e *env) wantExit(code int, sub string, args ...string) result {
	e.t.Helper()
	res := e.release(sub, args...)
	if res.code != code {
		e.t.Fatalf("release %s %s: %s\nwant exit %d", sub, strings.Join(args, " "), res, code)
	}
	return res
}

// plan plans the release and returns the stored plan.
func (e *env) plan() *plan.Plan {
	e.t.Helper()
	res := e.wantExit(cli.ExitOK, "plan", "-o", "json")
	var p plan.Plan
	if err := json.Unmarshal([]byte(res.stdout), &p); err != nil || p.Hash == "" {
		e.t.Fatalf("release plan -o json: %v (hash %q)\n%s", err, p.Hash, res.stdout)
	}
	return &p
}

// apply runs "release apply --approve" for p in-process.
func (e *env) apply(p *plan.Plan) result {
	e.t.Helper()
	return e.release("apply", "--approve", p.Hash)
}

// lib opens the release with the library.
func (e *env) lib() *release.Release {
	e.t.Helper()
	r, err := release.Open(e.spec, release.Options{})
	if err != nil {
		e.t.Fatalf("release.Open(%s) = %v", e.spec, err)
	}
	return r
}

// status is the release's latest run and revision as the library reads
// them.
func (e *env) status() *release.RunReport {
	e.t.Helper()
	st, err := e.lib().Run(ctx(e.t), "")
	if err != nil {
		e.t.Fatalf("Run() = %v", err)
	}
	return st
}

// runStatus is the latest run's status ("" before any run).
func (e *env) runStatus() string {
	e.t.Helper()
	if st := e.status(); st.Run != nil {
		return string(st.Run.Phase)
	}
	return ""
}

// latestRun returns the latest run and its replayed journal.
func (e *env) latestRun() (string, journal.State) {
	e.t.Helper()
	id, err := apply.LatestRun(e.stateDir)
	if err != nil {
		e.t.Fatal(err)
	}
	st, _, err := apply.Inspect(e.stateDir, id)
	if err != nil {
		e.t.Fatalf("Inspect(run %s) = %v", id, err)
	}
	return id, st
}

// journalPath is the latest run's journal.
func (e *env) journalPath() string {
	e.t.Helper()
	id, _ := e.latestRun()
	return apply.JournalPath(e.stateDir, id)
}

// waitJournal polls the latest run's journal until ok holds.
func (e *env) waitJournal(what string, ok func(journal.State) bool) {
	e.t.Helper()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	timeout := time.After(time.Minute)
	for {
		if id, err := apply.LatestRun(e.stateDir); err == nil {
			if st, _, err := apply.Inspect(e.stateDir, id); err == nil && ok(st) {
				return
			}
		}
		select {
		case <-tick.C:
		case <-timeout:
			e.t.Fatalf("the journal never showed %s", what)
		}
	}
}

// stepOf returns the index of the step of p named kind/name.
func stepOf(t *testing.T, p *plan.Plan, kind, name string) int {
	t.Helper()
	for i, s := range p.Steps {
		if s.Ref.Kind == kind && s.Ref.Name == name {
			return i
		}
	}
	t.Fatalf("the plan has no step for %s %s", kind, name)
	return -1
}

// objectPath is the API path of a namespaced object of the release, as
// the proxy logs it, for a Match.
func (e *env) objectPath(resource, name string) string {
	group := "/api/v1/"
	switch resource {
	case "deployments":
		group = "/apis/apps/v1/"
	case "leases":
		group = "/apis/coordination.k8s.io/v1/"
	}
	return group + "namespaces/" + e.ns + "/" + resource + "/" + name
}

// fault arms proxy rules and fails the scenario on a bad rule.
func (e *env) fault(rules ...faultproxy.Rule) {
	e.t.Helper()
	if err := e.proxy.Add(rules...); err != nil {
		e.t.Fatal(err)
	}
}

// markWrites moves the start of the writes the after-checks count to now.
func (e *env) markWrites() { e.mark = len(e.proxy.Requests()) }

// setFault refines the scenario's fault column once it is known (a kill's
// pass number, say).
func (e *env) setFault(format string, args ...any) { e.row.fault = fmt.Sprintf(format, args...) }

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func randomHex(t *testing.T, n int) string {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// wantIn fails unless text holds every fragment.
func wantIn(t *testing.T, what, text string, fragments ...string) {
	t.Helper()
	for _, f := range fragments {
		if !strings.Contains(text, f) {
			t.Errorf("%s does not say %q:\n%s", what, f, text)
		}
	}
}

// ctx is a context for one library call, bounded, that stays valid in the
// scenario's cleanup (where the test's own context has ended).
func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return c
}
