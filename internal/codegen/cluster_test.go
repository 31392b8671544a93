package codegen_test

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/pynenc/piceli/internal/codegen"
	"github.com/pynenc/piceli/internal/manifest"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
	"github.com/pynenc/piceli/refusal"
)

var crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// methods records the HTTP methods of the requests it carries.
type methods struct {
	mu   sync.Mutex
	seen []string
	next http.RoundTripper
}

func (m *methods) RoundTrip(r *http.Request) (*http.Response, error) {
	m.mu.Lock()
	m.seen = append(m.seen, r.Method+" "+r.URL.Path)
	m.mu.Unlock()
	return m.next.RoundTrip(r)
}

// The cluster form reads the CRDs the sandbox serves with GET requests
// only and generates the same files as the CRD file they were created
// from; a CRD the cluster lacks is refused and nothing is written.
func TestCodegenReadsCRDsFromTheClusterWithGETsOnly(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	ctx := sandboxtest.Context(t, time.Minute)
	_, file, _, _ := runtime.Caller(0)
	data, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "crdgen", "testdata", "crds", "widgets.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	data = bytes.ReplaceAll(data, []byte("crdgen.piceli.test"), []byte("cluster-read.crdgen.piceli.test"))
	crdFile := filepath.Join(t.TempDir(), "widgets.yaml")
	if err := os.WriteFile(crdFile, data, 0o644); err != nil {
		t.Fatal(err)
	}
	names := createCRDs(ctx, t, sb, crdFile)

	rec := &methods{}
	fromCluster := filepath.Join(t.TempDir(), "cluster")
	res, err := codegen.CRD(ctx, codegen.Options{Out: fromCluster, Cluster: &codegen.Cluster{
		Kubeconfig: sb.Kubeconfig, Context: sb.Context, CRDs: names,
		WrapTransport: func(rt http.RoundTripper) http.RoundTripper { rec.next = rt; return rec },
	}})
	if err != nil {
		t.Fatalf("CRD(cluster) = %v", err)
	}
	if len(rec.seen) < len(names) {
		t.Errorf("requests %v, want at least one GET per CRD", rec.seen)
	}
	for _, m := range rec.seen {
		if !strings.HasPrefix(m, "GET ") {
			t.Errorf("the cluster form sent %s; it may only read", m)
		}
	}
	fromFile := filepath.Join(t.TempDir(), "file")
	if _, err := codegen.CRD(ctx, codegen.Options{Out: fromFile, Files: []string{crdFile}}); err != nil {
		t.Fatalf("CRD(file) = %v", err)
	}
	for _, p := range res.Files {
		a, _ := os.ReadFile(filepath.Join(fromCluster, p))
		b, _ := os.ReadFile(filepath.Join(fromFile, p))
		if !bytes.Equal(a, b) {
			t.Errorf("%s from the cluster differs from the one generated from the CRD file", p)
		}
	}

	missing := filepath.Join(t.TempDir(), "missing")
	_, err = codegen.CRD(ctx, codegen.Options{Out: missing, Cluster: &codegen.Cluster{Kubeconfig: sb.Kubeconfig, Context: sb.Context, CRDs: []string{"nothings.cluster-read.crdgen.piceli.test"}}})
	if !refusal.Is(err) || !strings.Contains(err.Error(), "CustomResourceDefinition/nothings.cluster-read.crdgen.piceli.test: not found") {
		t.Errorf("CRD(a CRD the cluster lacks) = %v, want a refusal naming it", err)
	}
	if _, err := os.Stat(missing); err == nil {
		t.Errorf("a refused run created %s", missing)
	}
}

// createCRDs creates the CRDs of file on the sandbox (removed when the
// test ends) and returns their names.
func createCRDs(ctx context.Context, t *testing.T, sb *sandboxtest.Sandbox, file string) []string {
	t.Helper()
	objs, err := manifest.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, o := range objs {
		u := &unstructured.Unstructured{Object: o.Object.Object}
		if _, err := sb.Dynamic.Resource(crdGVR).Create(ctx, u, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create CRD %s: %v", u.GetName(), err)
		}
		name := u.GetName()
		names = append(names, name)
		t.Cleanup(func() {
			sb.Dynamic.Resource(crdGVR).Delete(context.Background(), name, metav1.DeleteOptions{})
		})
	}
	return slices.Sorted(slices.Values(names))
}
