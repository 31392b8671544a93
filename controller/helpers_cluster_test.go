package controller_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/pynenc/piceli/api/v1alpha1"
	"github.com/pynenc/piceli/controller"
	"github.com/pynenc/piceli/controller/source"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
	"github.com/pynenc/piceli/internal/signer"
)

// dirSource is a source whose revisions are the files a test writes: its
// revision is the SHA-256 of the files, and Fetch copies them.
type dirSource struct {
	mu    sync.Mutex
	files map[string]string
}

func (d *dirSource) set(files map[string]string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.files = files
}

func (d *dirSource) snapshot() map[string]string {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := map[string]string{}
	for k, v := range d.files {
		out[k] = v
	}
	return out
}

func (d *dirSource) Resolve(context.Context) (source.Revision, error) {
	files := d.snapshot()
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		fmt.Fprintf(h, "%s\x00%s\x00", n, files[n])
	}
	return source.Revision{ID: "sha256:" + hex.EncodeToString(h.Sum(nil)), Ref: "test"}, nil
}

func (d *dirSource) Fetch(_ context.Context, rev source.Revision, dir string) (*source.Content, error) {
	for n, body := range d.snapshot() {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(body), 0o600); err != nil {
			return nil, err
		}
	}
	return &source.Content{Revision: rev, Files: dir}, nil
}

// harness is a controller running in the test process against the
// sandbox, as the one in a pod does against its cluster.
type harness struct {
	sb      *sandboxtest.Sandbox
	client  client.Client
	ns      string   // the controller's namespace
	others  []string // more namespaces the controller watches
	src     *dirSource
	custom  source.Source // when set, the source of every Release
	signer  string
	keyFile string // the controller's state key
	workDir string // the controller's work directory
	log     *syncBuffer
	mu      sync.Mutex
}

// startController installs the CRD, starts a controller for the test,
// watching its own namespace and others more, and returns it; it stops
// with the test.
func startController(t *testing.T, others int) *harness {
	t.Helper()
	h := newHarness(t, others)
	dir := t.TempDir()
	h.workDir = filepath.Join(dir, "work")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- controller.Run(ctx, controller.Options{
			Kubeconfig: h.sb.Kubeconfig, Context: h.sb.Context, Namespace: h.ns, ServiceAccount: "piceli-controller",
			WorkDir: h.workDir, StateKeyFile: h.keyFile,
			Namespaces:  append([]string{h.ns}, h.others...),
			MetricsAddr: "0", ProbeAddr: "0", DefaultInterval: 2 * time.Second, FailureBackoff: time.Second, Log: h.log,
			Sources: func(v1alpha1.Source, source.Credentials) (source.Source, error) { return h.source(), nil },
		})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("controller: %v", err)
		}
		if t.Failed() {
			t.Logf("controller log:\n%s", h.log.String())
		}
	})
	return h
}

// newHarness prepares what a controller needs (the CRD, namespaces, a
// state key) without starting one.
func newHarness(t *testing.T, others int) *harness {
	t.Helper()
	sb := sandboxtest.Cluster(t)
	h := &harness{sb: sb, ns: sb.Namespace(t), src: &dirSource{}, log: &syncBuffer{}}
	for range others {
		h.others = append(h.others, sb.Namespace(t))
	}
	h.client = newClient(t, sb)
	installCRD(t, h.client)
	h.keyFile = filepath.Join(t.TempDir(), "state.key")
	key, _, err := signer.LoadOrCreate(h.keyFile)
	if err != nil {
		t.Fatal(err)
	}
	h.signer = key.Signer("piceli-controller@" + h.ns).String()
	return h
}

func newClient(t *testing.T, sb *sandboxtest.Sandbox) client.Client {
	t.Helper()
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, v1alpha1.AddToScheme, apiextensionsv1.AddToScheme} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}
	c, err := client.New(sb.RESTConfig, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// installCRD creates the Release CRD (or leaves the one there) and waits
// until it is served.
func installCRD(t *testing.T, c client.Client) {
	t.Helper()
	ctx := sandboxtest.Context(t, time.Minute)
	crd := v1alpha1.CRD()
	if err := c.Create(ctx, crd); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "the Release CRD is established", func() bool {
		var got apiextensionsv1.CustomResourceDefinition
		if c.Get(ctx, types.NamespacedName{Name: crd.Name}, &got) != nil {
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

// grantDeployer binds the deployer role in ns to the harness's controller.
func (h *harness) grantDeployer(t *testing.T, ns string, annotations map[string]string) {
	t.Helper()
	rb := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "piceli-deployer", Namespace: ns, Annotations: annotations},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: controller.DeployerRole},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "piceli-controller", Namespace: h.ns}},
	}
	if err := h.client.Create(sandboxtest.Context(t, 30*time.Second), rb); err != nil {
		t.Fatal(err)
	}
}

// createRelease creates a Release named name in ns.
func (h *harness) createRelease(t *testing.T, ns, name string, spec v1alpha1.ReleaseSpec) {
	t.Helper()
	if spec.Source.OCI == nil && spec.Source.Git == nil {
		spec.Source.OCI = &v1alpha1.OCISource{URL: "oci://127.0.0.1:1/test", Tag: "latest"}
	}
	if spec.Interval.Duration == 0 {
		spec.Interval = metav1.Duration{Duration: 2 * time.Second}
	}
	rel := &v1alpha1.Release{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Spec: spec}
	if err := h.client.Create(sandboxtest.Context(t, 30*time.Second), rel); err != nil {
		t.Fatal(err)
	}
}

// release reads the Release ns/name.
func (h *harness) release(t *testing.T, ns, name string) *v1alpha1.Release {
	t.Helper()
	var rel v1alpha1.Release
	if err := h.client.Get(sandboxtest.Context(t, 30*time.Second), types.NamespacedName{Namespace: ns, Name: name}, &rel); err != nil {
		t.Fatal(err)
	}
	return &rel
}

// waitFor polls the Release until ok says so, and returns it; on a
// timeout the test fails showing the last status seen.
func (h *harness) waitFor(t *testing.T, ns, name, what string, ok func(*v1alpha1.Release) bool) *v1alpha1.Release {
	t.Helper()
	var last *v1alpha1.Release
	deadline := time.Now().Add(60 * time.Second)
	for {
		last = h.release(t, ns, name)
		if ok(last) {
			return last
		}
		if time.Now().After(deadline) {
			st, _ := json.MarshalIndent(last.Status, "", "  ")
			t.Fatalf("after 60s: %s did not happen; the Release's status:\n%s", what, st)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// approve writes hash into the Release's spec.approve, as
// `piceli controller approve` does.
func (h *harness) approve(t *testing.T, ns, name, hash string) {
	t.Helper()
	if _, err := controller.Approve(sandboxtest.Context(t, 30*time.Second), h.client, types.NamespacedName{Namespace: ns, Name: name}, hash); err != nil {
		t.Fatal(err)
	}
}

func eventually(t *testing.T, d time.Duration, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("after %s: %s did not happen", d, what)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  []byte
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b = append(s.b, p...)
	return len(p), nil
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return string(s.b)
}

func (h *harness) approveErr(t *testing.T, ns, name, hash string) error {
	t.Helper()
	_, err := controller.Approve(sandboxtest.Context(t, 30*time.Second), h.client, types.NamespacedName{Namespace: ns, Name: name}, hash)
	return err
}

// secretCount counts the Secrets in ns.
func (h *harness) secretCount(t *testing.T, ns string) int {
	t.Helper()
	var list corev1.SecretList
	if err := h.client.List(sandboxtest.Context(t, 30*time.Second), &list, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	return len(list.Items)
}

// setSource makes s the source of every Release the harness serves.
func (h *harness) setSource(s source.Source) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.custom = s
}

func (h *harness) source() source.Source {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.custom != nil {
		return h.custom
	}
	return h.src
}

// serviceLivePort is the first port of Service ns/name.
func (h *harness) serviceLivePort(t *testing.T, ns, name string) int32 {
	t.Helper()
	var svc corev1.Service
	if err := h.client.Get(sandboxtest.Context(t, 30*time.Second), types.NamespacedName{Namespace: ns, Name: name}, &svc); err != nil {
		t.Fatal(err)
	}
	return svc.Spec.Ports[0].Port
}
