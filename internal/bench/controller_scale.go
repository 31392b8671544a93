package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/pynenc/piceli/api/v1alpha1"
	"github.com/pynenc/piceli/controller"
	"github.com/pynenc/piceli/internal/signer"
	"github.com/pynenc/piceli/publish"
)

// The controller scenario (issue 35): Releases delivered by the
// piceli-controller binary, run as a process of its own so that its peak
// resident set is its own (VmHWM), from an OCI registry in this process on
// 127.0.0.1.
const (
	ctlNamespace      = "piceli-scale-system" // the controller's own namespace
	ctlServiceAccount = "piceli-controller"
	ctlInterval       = time.Hour // no pass but the ones the scenario asks for
	ctlWorkers        = 8         // the scenario's own requests in flight
	ctlReadyTimeout   = 30 * time.Minute
	ctlPassTimeout    = 10 * time.Minute
)

// Targets of issue 35's acceptance 4.
const (
	ctlPassTarget = 30 * time.Second
	ctlRSSTarget  = 256 << 20
)

// ctlFigures are what the controller scenario measured.
type ctlFigures struct {
	Releases, Objects int
	Ready             time.Duration // from creating the Releases until every one is Ready
	Pass              time.Duration // a no-op pass over every Release
	Requests          float64       // the controller's own API requests during that pass
	ByKind            map[string]float64
	RSS               int64 // the controller's VmHWM, bytes
	RSSAfter          int64 // its VmRSS after the pass
}

// ctlRun is one run of the controller scenario in progress.
type ctlRun struct {
	b       *bench
	c       client.Client
	dir     string
	reg     string // the registry's host:port
	metrics string // the controller's metrics URL
	cmd     *exec.Cmd
	done    chan struct{}
	logFile string
}

// controllerScale runs the controller scenario on b's sandbox.
func (b *bench) controllerScale(ctx context.Context) (ctlFigures, error) {
	f := ctlFigures{Releases: b.cfg.CtlReleases, Objects: b.cfg.CtlObjects}
	r, closeRegistry, err := b.newCtlRun("controller-")
	if err != nil {
		return f, err
	}
	defer closeRegistry()
	if err := r.prepare(ctx, f); err != nil {
		return f, err
	}
	if err := r.start(ctx); err != nil {
		return f, err
	}
	defer r.stop()
	if err := r.deliver(ctx, &f); err != nil {
		return f, r.withLog(err)
	}
	if err := r.noOpPass(ctx, &f); err != nil {
		return f, r.withLog(err)
	}
	if f.RSS, f.RSSAfter, err = procRSS(r.cmd.Process.Pid); err != nil {
		return f, err
	}
	return f, nil
}

// newCtlRun makes a work directory named after prefix, a client and an
// OCI registry on 127.0.0.1 for a scenario run by the controller binary;
// closeRegistry ends the registry.
func (b *bench) newCtlRun(prefix string) (r *ctlRun, closeRegistry func(), err error) {
	dir, err := os.MkdirTemp(b.data.dir, prefix)
	if err != nil {
		return nil, nil, err
	}
	c, err := newCtlClient(b)
	if err != nil {
		return nil, nil, err
	}
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	r = &ctlRun{b: b, c: c, dir: dir, reg: strings.TrimPrefix(srv.URL, "http://"), logFile: filepath.Join(dir, "controller.log")}
	return r, srv.Close, nil
}

func newCtlClient(b *bench) (client.Client, error) {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, v1alpha1.AddToScheme, apiextensionsv1.AddToScheme} {
		if err := add(scheme); err != nil {
			return nil, err
		}
	}
	cfg := *b.c.c.Config
	cfg.QPS, cfg.Burst = 500, 1000
	return client.New(&cfg, client.Options{Scheme: scheme})
}

// ctlNamespaceOf is the namespace of the i-th Release, its target too.
func ctlNamespaceOf(i int) string { return fmt.Sprintf("scale-%03d", i) }

// prepare installs the CRD, makes the controller's namespace, and for
// every Release its namespace, the deployer RoleBinding there and its
// artifact in the registry.
func (r *ctlRun) prepare(ctx context.Context, f ctlFigures) error {
	r.b.logf("controller scenario: %d Releases of %d objects; the CRD, namespaces, RoleBindings and artifacts", f.Releases, f.Objects)
	if err := r.installBase(ctx); err != nil {
		return err
	}
	return forEach(ctx, f.Releases, func(i int) error {
		ns := ctlNamespaceOf(i)
		return r.prepareRelease(ctx, ns, ctlContent(ns, f.Objects))
	})
}

// installBase installs the CRD and makes the controller's namespace,
// unless an earlier scenario on the sandbox did.
func (r *ctlRun) installBase(ctx context.Context) error {
	if err := r.installCRD(ctx); err != nil {
		return err
	}
	if err := r.c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ctlNamespace}}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	return nil
}

// prepareRelease makes namespace ns, the deployer RoleBinding there for
// the controller, and pushes content to the registry as repository ns,
// tag v1.
func (r *ctlRun) prepareRelease(ctx context.Context, ns string, content *publish.Content) error {
	if err := r.c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		return fmt.Errorf("create namespace %s: %w", ns, err)
	}
	rb := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "piceli-deployer", Namespace: ns},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: controller.DeployerRole},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: ctlServiceAccount, Namespace: ctlNamespace}},
	}
	if err := r.c.Create(ctx, rb); err != nil {
		return fmt.Errorf("create RoleBinding %s/%s: %w", ns, rb.Name, err)
	}
	a, err := publish.Build(content)
	if err != nil {
		return err
	}
	_, err = publish.Push(ctx, a, publish.Destination{Registry: r.reg, Repository: ns, Tag: "v1"}, publish.PushOptions{})
	return err
}

func (r *ctlRun) installCRD(ctx context.Context) error {
	crd := v1alpha1.CRD()
	if err := r.c.Create(ctx, crd); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("install the Release CRD: %w", err)
	}
	return poll(ctx, time.Minute, "the Release CRD is established", func() (bool, error) {
		var got apiextensionsv1.CustomResourceDefinition
		if err := r.c.Get(ctx, types.NamespacedName{Name: crd.Name}, &got); err != nil {
			return false, err
		}
		for _, cond := range got.Status.Conditions {
			if cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue {
				return true, nil
			}
		}
		return false, nil
	})
}

// ctlImage is the Deployments' image: kwok runs nothing, so it is never
// pulled, but an artifact names every image by digest.
const ctlImage = "example.invalid/app@sha256:0000000000000000000000000000000000000000000000000000000000000001"

// ctlContent is release app in ns with n objects: of every five, two
// ConfigMaps, two Services and one one-replica Deployment.
func ctlContent(ns string, n int) *publish.Content {
	c := &publish.Content{Metadata: publish.Metadata{Schema: publish.MetadataSchema, Release: "app", Namespace: ns, Wait: "ready"}}
	for i := range n {
		name := fmt.Sprintf("o-%03d", i)
		var u *unstructured.Unstructured
		switch i % 5 {
		case 0, 1:
			u = &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
				"data": map[string]any{"index": strconv.Itoa(i)}}}
		case 2, 3:
			u = &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Service",
				"spec": map[string]any{"selector": map[string]any{"app": name}, "ports": []any{map[string]any{"port": int64(80)}}}}}
		default:
			labels := map[string]any{"app": name}
			u = &unstructured.Unstructured{Object: map[string]any{"apiVersion": "apps/v1", "kind": "Deployment",
				"spec": map[string]any{"replicas": int64(1), "selector": map[string]any{"matchLabels": labels},
					"template": map[string]any{"metadata": map[string]any{"labels": labels},
						"spec": map[string]any{"containers": []any{map[string]any{"name": "app", "image": ctlImage}}}}}}}
		}
		u.SetName(name)
		u.SetNamespace(ns)
		kind := u.GetKind()
		ref := kind + "/" + ns + "/" + name
		if kind == "Deployment" {
			ref = "Deployment.apps/" + ns + "/" + name
		}
		c.Manifests = append(c.Manifests, u)
		c.Metadata.Objects = append(c.Metadata.Objects, publish.ObjectInfo{
			File: fmt.Sprintf("%03d-%s-%s-%s.yaml", i, strings.ToLower(kind), ns, name), Ref: ref, Origin: "bench",
		})
	}
	return c
}

// start runs the controller binary with its metrics on a free loopback
// port.
func (r *ctlRun) start(ctx context.Context) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	r.metrics = fmt.Sprintf("http://127.0.0.1:%d/metrics", port)
	key := filepath.Join(r.dir, "state.key")
	if _, _, err := signer.LoadOrCreate(key); err != nil {
		return err
	}
	out, err := os.Create(r.logFile)
	if err != nil {
		return err
	}
	r.cmd = exec.Command(r.b.cfg.Controller,
		"--kubeconfig", r.b.t.Kubeconfig, "--context", r.b.t.Context, "--namespace", ctlNamespace, "--service-account", ctlServiceAccount,
		"--work-dir", filepath.Join(r.dir, "work"), "--state-key-file", key,
		"--metrics-bind-address", fmt.Sprintf("127.0.0.1:%d", port), "--health-probe-bind-address", "0",
		"--identity", "bench", "--default-interval", ctlInterval.String())
	r.cmd.Stdout, r.cmd.Stderr = out, out
	if err := r.cmd.Start(); err != nil {
		out.Close()
		return fmt.Errorf("start %s: %w", r.b.cfg.Controller, err)
	}
	r.done = make(chan struct{})
	go func() { r.cmd.Wait(); out.Close(); close(r.done) }()
	return poll(ctx, time.Minute, "the controller serves its metrics", func() (bool, error) {
		select {
		case <-r.done:
			return false, errors.New("the controller exited")
		default:
		}
		_, err := r.scrape(ctx)
		return err == nil, nil
	})
}

// stop ends the controller: SIGTERM, then SIGKILL after 20 s.
func (r *ctlRun) stop() {
	if r.cmd == nil || r.cmd.Process == nil {
		return
	}
	r.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-r.done:
	case <-time.After(20 * time.Second):
		r.cmd.Process.Kill()
		<-r.done
	}
}

// withLog adds the end of the controller's log to err.
func (r *ctlRun) withLog(err error) error {
	data, _ := os.ReadFile(r.logFile)
	return fmt.Errorf("%w\ncontroller log (%s):\n%s", err, r.logFile, tail(string(data)))
}

// deliver creates the Releases, each approved by its policy, and waits
// until every one is Ready.
func (r *ctlRun) deliver(ctx context.Context, f *ctlFigures) error {
	start := time.Now()
	err := forEach(ctx, f.Releases, func(i int) error {
		ns := ctlNamespaceOf(i)
		rel := &v1alpha1.Release{ObjectMeta: metav1.ObjectMeta{Name: "app", Namespace: ns}, Spec: v1alpha1.ReleaseSpec{
			Source:   v1alpha1.Source{OCI: &v1alpha1.OCISource{URL: "oci://" + r.reg + "/" + ns, Tag: "v1", Insecure: true}},
			Policy:   &v1alpha1.Policy{Actions: []string{"create", "update"}},
			Interval: metav1.Duration{Duration: ctlInterval},
		}}
		return r.c.Create(ctx, rel)
	})
	if err != nil {
		return err
	}
	last := time.Now()
	err = poll(ctx, ctlReadyTimeout, "every Release is Ready", func() (bool, error) {
		states, err := r.states(ctx)
		if err != nil {
			return false, err
		}
		if states[v1alpha1.StateStalled] > 0 {
			return false, fmt.Errorf("%d Releases are Stalled", states[v1alpha1.StateStalled])
		}
		if time.Since(last) > 30*time.Second {
			last = time.Now()
			r.b.logf("  after %s: %v", time.Since(start).Round(time.Second), states)
		}
		return states[v1alpha1.StateReady] == f.Releases, nil
	})
	f.Ready = time.Since(start)
	return err
}

// states counts the scenario's Releases by state.
func (r *ctlRun) states(ctx context.Context) (map[string]int, error) {
	var list v1alpha1.ReleaseList
	if err := r.c.List(ctx, &list); err != nil {
		return nil, err
	}
	out := map[string]int{}
	for _, rel := range list.Items {
		if strings.HasPrefix(rel.Namespace, "scale-") {
			out[string(rel.Status.State)]++
		}
	}
	return out, nil
}

// noOpPass asks for a pass over every Release at once (the sync
// annotation, as `piceli controller sync` writes it) and times it until
// the controller has finished as many passes, none of them planning a
// change; it counts the controller's own API requests meanwhile.
func (r *ctlRun) noOpPass(ctx context.Context, f *ctlFigures) error {
	if err := r.quiet(ctx); err != nil {
		return err
	}
	before, err := r.scrape(ctx)
	if err != nil {
		return err
	}
	apiBefore, err := r.b.c.requests(ctx)
	if err != nil {
		return err
	}
	r.b.logf("controller scenario: a no-op pass over %d Releases", f.Releases)
	start := time.Now()
	if err := forEach(ctx, f.Releases, func(i int) error {
		_, err := controller.Sync(ctx, r.c, types.NamespacedName{Namespace: ctlNamespaceOf(i), Name: "app"})
		return err
	}); err != nil {
		return err
	}
	var after ctlMetrics
	err = poll(ctx, ctlPassTimeout, "a pass over every Release", func() (bool, error) {
		m, err := r.scrape(ctx)
		after = m
		return err == nil && m.passes-before.passes >= float64(f.Releases), err
	})
	f.Pass = time.Since(start)
	if err != nil {
		return err
	}
	if d := after.changed - before.changed; d > 0 {
		return fmt.Errorf("%.0f of the passes planned a change: the pass was not a no-op", d)
	}
	if d := after.runs - before.runs; d > 0 {
		return fmt.Errorf("%.0f runs during the no-op pass", d)
	}
	if d := after.passes - before.passes; d > float64(f.Releases) {
		return fmt.Errorf("%.0f passes, want %d", d, f.Releases)
	}
	if after.requests < 0 {
		return errors.New("the controller's metrics have no rest_client_requests_total")
	}
	f.Requests = after.requests - before.requests
	apiAfter, err := r.b.c.requests(ctx)
	if err != nil {
		return err
	}
	f.ByKind = perRelease(breakdownAll(apiBefore, apiAfter), f.Releases)
	return nil
}

// quiet waits until the controller has made no pass for 5 s.
func (r *ctlRun) quiet(ctx context.Context) error {
	last, err := r.scrape(ctx)
	if err != nil {
		return err
	}
	still := time.Now()
	return poll(ctx, 5*time.Minute, "the controller is idle", func() (bool, error) {
		m, err := r.scrape(ctx)
		if err != nil {
			return false, err
		}
		if m.passes != last.passes {
			last, still = m, time.Now()
		}
		return time.Since(still) >= 5*time.Second, nil
	})
}

// ctlMetrics are the controller's counters the scenario reads.
type ctlMetrics struct {
	passes, changed, runs float64
	requests              float64 // rest_client_requests_total; -1 when absent
}

func (r *ctlRun) scrape(ctx context.Context) (ctlMetrics, error) {
	m := ctlMetrics{requests: -1}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.metrics, nil)
	if err != nil {
		return m, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return m, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil || resp.StatusCode != http.StatusOK {
		return m, fmt.Errorf("controller metrics: %s, %v", resp.Status, err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		name, rest, ok := strings.Cut(line, "{")
		if !ok {
			name, rest, ok = strings.Cut(line, " ")
		}
		if !ok || strings.HasPrefix(line, "#") {
			continue
		}
		v, err := strconv.ParseFloat(rest[strings.LastIndexByte(rest, ' ')+1:], 64)
		if err != nil {
			continue
		}
		switch {
		case name == "piceli_controller_passes_total":
			m.passes += v
		case name == "piceli_controller_plans_total" && strings.Contains(rest, `changed="true"`):
			m.changed += v
		case name == "piceli_controller_runs_total":
			m.runs += v
		case name == "rest_client_requests_total":
			m.requests = max(m.requests, 0) + v
		}
	}
	return m, nil
}

// breakdownAll is every request the API server served between two
// scrapes, by verb and resource (the control plane's own among them).
func breakdownAll(before, after requestCounts) map[string]float64 {
	out := map[string]float64{}
	for key, s := range after {
		d := s.value - before[key].value
		if d == 0 || s.labels["resource"] == "" {
			continue
		}
		out[s.labels["verb"]+" "+s.labels["resource"]+s.labels["subresource"]] += d
	}
	return out
}

// perRelease divides counts by n and keeps those of at least one in every
// two Releases: the control plane's background (node heartbeats, leases)
// falls below that.
func perRelease(counts map[string]float64, n int) map[string]float64 {
	out := map[string]float64{}
	for k, v := range counts {
		if v/float64(n) >= 0.5 {
			out[k] = v / float64(n)
		}
	}
	return out
}

// procRSS reads a process's VmHWM and VmRSS, in bytes.
func procRSS(pid int) (hwm, rss int64, err error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			fmt.Sscanf(strings.TrimSpace(v), "%d", &hwm)
		}
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			fmt.Sscanf(strings.TrimSpace(v), "%d", &rss)
		}
	}
	if hwm == 0 {
		return 0, 0, fmt.Errorf("no VmHWM in /proc/%d/status", pid)
	}
	return hwm * 1024, rss * 1024, nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// forEach calls fn for 0..n-1, ctlWorkers at a time, and returns the
// first error.
func forEach(ctx context.Context, n int, fn func(int) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	next := make(chan int)
	var wg sync.WaitGroup
	for range ctlWorkers {
		wg.Go(func() {
			for i := range next {
				if err := fn(i); err != nil {
					cancel(err)
				}
			}
		})
	}
feed:
	for i := range n {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	return context.Cause(ctx)
}

// poll calls ok every 500 ms until it says done, fails, or d passes.
func poll(ctx context.Context, d time.Duration, what string, ok func() (bool, error)) error {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		done, err := ok()
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		if done {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: not after %s", what, d)
		case <-tick.C:
		}
	}
}

// ctlHeading starts the controller scenario's section of the results.
const ctlHeading = "## The controller at scale (issue 35)"

// controllerSection is the results of the controller scenario.
func controllerSection(f ctlFigures) string {
	var s strings.Builder
	fmt.Fprintf(&s, "\n%s\n\n", ctlHeading)
	fmt.Fprintf(&s, `The piceli-controller binary (%d workers), as a process of its own on the same sandbox, delivers %d
Releases of %d objects each (of every five: two ConfigMaps, two ClusterIP Services and one
one-replica Deployment), each Release in a namespace of its own whose deployer RoleBinding
allows it, approved by its policy, from an OCI registry in the benchmark's process on
127.0.0.1. Each Release's interval is an hour, so the controller makes no pass but the ones
measured. The no-op pass: the benchmark writes the sync annotation (as `+"`piceli controller sync`"+`
does) into every Release at once and times until the controller has finished a pass over each
(its `+"`piceli_controller_passes_total`"+`); none may plan a change or run. Each such pass writes
the Release's status once (its `+"`synced`"+` field); a pass its interval starts writes nothing.

| figure | measured | target | |
| --- | --- | --- | --- |
`, controller.Workers, f.Releases, f.Objects)
	fmt.Fprintf(&s, "| every Release Ready, from their creation | %s | | |\n", f.Ready.Round(time.Second))
	fmt.Fprintf(&s, "| a no-op pass over all %d | %.1f s | at most %s | %s |\n", f.Releases, f.Pass.Seconds(), ctlPassTarget, metOrMissed(f.Pass <= ctlPassTarget))
	fmt.Fprintf(&s, "| the controller's peak RSS (VmHWM, the whole run) | %.0f MiB | under %d MiB | %s |\n", float64(f.RSS)/(1<<20), ctlRSSTarget>>20, metOrMissed(f.RSS < ctlRSSTarget))
	fmt.Fprintf(&s, "| its RSS after the pass | %.0f MiB | | |\n", float64(f.RSSAfter)/(1<<20))
	fmt.Fprintf(&s, "| API requests per Release per no-op pass (the controller's own client count) | %.1f | reported | |\n", f.Requests/float64(f.Releases))
	keys := slices.Sorted(maps.Keys(f.ByKind))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %.1f", k, f.ByKind[k])
	}
	fmt.Fprintf(&s, "\nPer Release during the pass, as the API server counted them (the benchmark's own GET and PATCH\nof each Release among them; kinds below one request in two Releases left out): %s.\n", strings.Join(parts, ", "))
	s.WriteString(`
For comparison: the single-release figures above are the CLI's and kubectl's on one release.
What users of other GitOps controllers reported in their issues (their clusters, not measured
here): an Argo CD sync of one Application of about 4,000 resources never finishing
([argo-cd#14224](https://github.com/argoproj/argo-cd/issues/14224)); an Argo CD application
controller with over 200 Applications OOM-killed at up to 6,000 Mi after an upgrade
([argo-cd#4298](https://github.com/argoproj/argo-cd/issues/4298)); Flux's kustomize-controller
with about 200 Kustomizations reconciling at once taking 10 to 15 s for each at 4 workers and
3 to 4 minutes at 20 ([kustomize-controller#816](https://github.com/fluxcd/kustomize-controller/issues/816)),
and OOM-killed waiting on about 1,000 pods in one namespace
([kustomize-controller#801](https://github.com/fluxcd/kustomize-controller/issues/801)).
`)
	return s.String()
}

func metOrMissed(ok bool) string {
	if ok {
		return "met"
	}
	return "**missed**"
}

// spliceSection replaces the section that starts with heading in doc (up
// to the next "## " heading) with section, or appends it.
func spliceSection(doc, heading, section string) string {
	i := strings.Index(doc, "\n"+heading+"\n")
	if i < 0 {
		return strings.TrimRight(doc, "\n") + "\n" + section
	}
	rest := doc[i+1+len(heading):]
	end := strings.Index(rest, "\n## ")
	tail := ""
	if end >= 0 {
		tail = rest[end:]
	}
	return strings.TrimRight(doc[:i], "\n") + "\n" + strings.TrimRight(section, "\n") + "\n" + tail
}
