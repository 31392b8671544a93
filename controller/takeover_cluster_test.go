package controller_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/pynenc/piceli/api/v1alpha1"
	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
	"github.com/pynenc/piceli/internal/signer"
	"github.com/pynenc/piceli/progress"
	"github.com/pynenc/piceli/publish"
	"github.com/pynenc/piceli/release"
)

// widgets are a kind only this test writes, so the API server's request
// counts for it are this test's alone.
var widgets = schema.GroupVersionResource{Group: "ctltest.piceli.dev", Version: "v1", Resource: "widgets"}

func installWidgetCRD(t *testing.T, c client.Client) {
	t.Helper()
	keep := true
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: widgets.Resource + "." + widgets.Group},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: widgets.Group, Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: &keep}}}},
		},
	}
	ctx := sandboxtest.Context(t, time.Minute)
	if err := c.Create(ctx, crd); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "the Widget CRD is established", func() bool {
		var got apiextensionsv1.CustomResourceDefinition
		if c.Get(ctx, client.ObjectKey{Name: crd.Name}, &got) != nil {
			return false
		}
		for _, cond := range got.Status.Conditions {
			if cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue {
				return true
			}
		}
		return false
	})
}

func widget(ns string, i int, size string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "ctltest.piceli.dev/v1", "kind": "Widget",
		"metadata": map[string]any{"name": fmt.Sprintf("w-%d", i), "namespace": ns},
		"spec":     map[string]any{"size": size},
	}}
}

// widgetContent is release app in ns: n Widgets, the first of size first.
func widgetContent(ns string, n int, first string) *publish.Content {
	c := &publish.Content{Metadata: publish.Metadata{Schema: publish.MetadataSchema, Release: "app", Namespace: ns, Wait: "ready"}}
	for i := range n {
		size := "1"
		if i == 0 {
			size = first
		}
		u := widget(ns, i, size)
		c.Manifests = append(c.Manifests, u)
		c.Metadata.Objects = append(c.Metadata.Objects, publish.ObjectInfo{
			File: fmt.Sprintf("%03d-widget-%s-%s.yaml", i, ns, u.GetName()), Ref: "Widget.ctltest.piceli.dev/" + ns + "/" + u.GetName(), Origin: "test",
		})
	}
	return c
}

// push publishes c to the registry at addr as app:tag.
func push(t *testing.T, addr, tag string, c *publish.Content) string {
	t.Helper()
	a, err := publish.Build(c)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := publish.Push(sandboxtest.Context(t, time.Minute), a, publish.Destination{Registry: addr, Repository: "app", Tag: tag}, publish.PushOptions{}); err != nil {
		t.Fatal(err)
	}
	return a.Digest
}

// widgetWrites is how many writes of Widgets (not dry runs, not deletes)
// the API server has answered, from its request counts.
func widgetWrites(t *testing.T, h *harness) int {
	t.Helper()
	body, err := h.sb.Clientset.Discovery().RESTClient().Get().AbsPath("/metrics").DoRaw(sandboxtest.Context(t, 30*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "apiserver_request_total{") || !strings.Contains(line, `group="`+widgets.Group+`"`) ||
			!strings.Contains(line, `resource="widgets"`) || !strings.Contains(line, `dry_run=""`) {
			continue
		}
		write := false
		// Deletes are left out: the namespace controller deletes the
		// Widgets of earlier tests' namespaces; this test deletes none.
		for _, verb := range []string{"APPLY", "PATCH", "POST", "CREATE", "PUT", "UPDATE"} {
			write = write || strings.Contains(line, `verb="`+verb+`"`)
		}
		if !write {
			continue
		}
		n, err := strconv.ParseFloat(line[strings.LastIndex(line, " ")+1:], 64)
		if err != nil {
			t.Fatalf("metrics line %q: %v", line, err)
		}
		total += int(n)
	}
	return total
}

func (h *harness) widgetCount(t *testing.T, ns string) int {
	t.Helper()
	list, err := h.sb.Dynamic.Resource(widgets).Namespace(ns).List(sandboxtest.Context(t, 30*time.Second), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return len(list.Items)
}

// TestMain removes the controller binary the tests built, about 100 MB a
// run, which would otherwise pile up in the temporary directory.
func TestMain(m *testing.M) {
	code := m.Run()
	if controllerBuild.dir != "" {
		os.RemoveAll(controllerBuild.dir)
	}
	os.Exit(code)
}

// controllerBinary builds cmd/piceli-controller with failpoints, once.
var controllerBuild struct {
	once sync.Once
	dir  string
	err  error
}

func controllerBinary(t *testing.T) string {
	t.Helper()
	controllerBuild.once.Do(func() {
		controllerBuild.dir, controllerBuild.err = os.MkdirTemp("", "piceli-controller-bin-")
		if controllerBuild.err != nil {
			return
		}
		cmd := exec.Command("go", "build", "-tags", "piceli_failpoints", "-o", filepath.Join(controllerBuild.dir, "piceli-controller"), "../cmd/piceli-controller")
		if out, err := cmd.CombinedOutput(); err != nil {
			controllerBuild.err = fmt.Errorf("%v\n%s", err, out)
		}
	})
	if controllerBuild.err != nil {
		t.Fatal(controllerBuild.err)
	}
	return filepath.Join(controllerBuild.dir, "piceli-controller")
}

// replica is a controller process, as one replica of the Deployment.
type replica struct {
	cmd  *exec.Cmd
	out  *syncBuffer
	done chan struct{}
}

func (h *harness) startReplica(t *testing.T, identity, failpoint string) *replica {
	t.Helper()
	r := &replica{out: &syncBuffer{}, done: make(chan struct{})}
	r.cmd = exec.Command(controllerBinary(t),
		"--kubeconfig", h.sb.Kubeconfig, "--context", h.sb.Context, "--namespace", h.ns, "--service-account", "piceli-controller",
		"--work-dir", filepath.Join(t.TempDir(), "work"), "--state-key-file", h.keyFile,
		"--metrics-bind-address", "0", "--health-probe-bind-address", "0", "--leader-elect", "--identity", identity,
		"--default-interval", "2s", "--watch-namespaces", h.ns)
	r.cmd.Env = os.Environ()
	if failpoint != "" {
		r.cmd.Env = append(r.cmd.Env, apply.FailpointEnv+"="+failpoint)
	}
	r.cmd.Stdout, r.cmd.Stderr = r.out, r.out
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { r.cmd.Wait(); close(r.done) }()
	t.Cleanup(func() {
		r.cmd.Process.Kill()
		<-r.done
		if t.Failed() {
			t.Logf("replica %s:\n%s", identity, r.out.String())
		}
	})
	return r
}

func TestAKilledLeadersRunIsFinishedByTheOtherReplicaAndLeasesKeepLaptopsOut(t *testing.T) {
	h := newHarness(t, 0)
	ns := h.ns
	h.grantDeployer(t, ns, nil)
	installWidgetCRD(t, h.client)
	reg := httptest.NewServer(registry.New())
	t.Cleanup(reg.Close)
	addr := strings.TrimPrefix(reg.URL, "http://")
	push(t, addr, "v1", widgetContent(ns, 5, "1"))
	before := widgetWrites(t, h)
	laptopKey := filepath.Join(t.TempDir(), "laptop.key")
	key, _, err := signer.LoadOrCreate(laptopKey)
	if err != nil {
		t.Fatal(err)
	}
	laptopSigner := key.Signer("laptop").String()

	h.createRelease(t, ns, "app", v1alpha1.ReleaseSpec{
		Source:       v1alpha1.Source{OCI: &v1alpha1.OCISource{URL: "oci://" + addr + "/app", Tag: "v1", Insecure: true}},
		Policy:       &v1alpha1.Policy{Actions: []string{"create", "update"}},
		StateSigners: []string{laptopSigner},
	})
	leader := h.startReplica(t, "replica-a", apply.FailAfterWrite+":1:5m")
	h.waitFor(t, ns, "app", "replica a applies revision 1", func(r *v1alpha1.Release) bool { return r.Status.State == v1alpha1.StateApplying })
	eventually(t, time.Minute, "replica a wrote every Widget", func() bool { return h.widgetCount(t, ns) == 5 })

	// A laptop's apply of the same release is refused by the Lease
	// while the controller runs it.
	ctx := sandboxtest.Context(t, 3*time.Minute)
	laptop := h.laptopRelease(t, laptopWidget("9"), laptopKey, laptopSigner)
	rep, err := laptop.Run(ctx, "")
	if err != nil || rep.Run == nil || rep.Run.Phase != release.PhaseRunning {
		t.Fatalf("the laptop sees run %+v (%v); want the controller's run, running", rep, err)
	}
	interrupted := rep.Run.ID
	p, err := laptop.Plan(ctx, release.PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var held *release.LockHeldError
	if _, err := laptop.Apply(ctx, p.Hash, release.RunOptions{}); !errors.As(err, &held) {
		t.Fatalf("the laptop's apply during the controller's run: %v; want refused by the Lease", err)
	}

	if err := leader.cmd.Process.Kill(); err != nil { // SIGKILL, mid-run
		t.Fatal(err)
	}
	<-leader.done
	h.startReplica(t, "replica-b", "")
	rel := h.waitFor(t, ns, "app", "replica b finishes the interrupted run", func(r *v1alpha1.Release) bool {
		return r.Status.State == v1alpha1.StateReady && len(r.Status.Runs) == 1
	})
	if rel.Status.Runs[0].ID != interrupted || rel.Status.Runs[0].Phase != "finished" {
		t.Fatalf("runs: %+v; want run %s, resumed and finished", rel.Status.Runs, interrupted)
	}
	if n := widgetWrites(t, h) - before; n != 5 {
		t.Fatalf("the API server answered %d writes of Widgets; want 5, one per Widget", n)
	}

	// The reverse: while a laptop runs the release, the controller waits.
	laptop = h.laptopRelease(t, laptopWidget("7"), laptopKey, laptopSigner)
	p, err = laptop.Plan(ctx, release.PlanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	paused, resume := make(chan struct{}), make(chan struct{})
	var once sync.Once
	laptopDone := make(chan error, 1)
	go func() {
		_, err := laptop.Apply(ctx, p.Hash, release.RunOptions{Events: func(e progress.Event) {
			if e.Kind == progress.StepFinished { // its first write landed: it holds the Lease
				once.Do(func() { close(paused); <-resume })
			}
		}})
		laptopDone <- err
	}()
	select {
	case <-paused:
	case err := <-laptopDone:
		t.Fatalf("the laptop's run ended before it wrote: %v", err)
	}
	push(t, addr, "v1", widgetContent(ns, 5, "2")) // a new revision the policy would apply
	h.waitFor(t, ns, "app", "the controller waits for the laptop's run", func(r *v1alpha1.Release) bool {
		return r.Status.State == v1alpha1.StateApplying && strings.Contains(reconcilingMessage(r), "running")
	})
	waiting := widgetWrites(t, h)
	time.Sleep(5 * time.Second) // more than two intervals
	if n := widgetWrites(t, h); n != waiting {
		t.Fatalf("%d Widget writes while the laptop held the release", n-waiting)
	}
	close(resume)
	if err := <-laptopDone; err != nil {
		t.Fatalf("the laptop's run: %v", err)
	}
	rel = h.waitFor(t, ns, "app", "the controller applies revision 2 after the laptop", func(r *v1alpha1.Release) bool {
		return r.Status.State == v1alpha1.StateReady && len(r.Status.Runs) == 3
	})
	if w, err := h.sb.Dynamic.Resource(widgets).Namespace(ns).Get(ctx, "w-0", metav1.GetOptions{}); err != nil || w.Object["spec"].(map[string]any)["size"] != "2" {
		t.Fatalf("w-0 after revision 2: %v, %v", w, err)
	}
}

func laptopWidget(size string) map[string]string {
	return map[string]string{"w.yaml": "apiVersion: ctltest.piceli.dev/v1\nkind: Widget\nmetadata:\n  name: w-0\nspec:\n  size: \"" + size + "\"\n"}
}

func reconcilingMessage(rel *v1alpha1.Release) string {
	for _, c := range rel.Status.Conditions {
		if c.Type == v1alpha1.ConditionReconciling {
			return c.Message
		}
	}
	return ""
}
