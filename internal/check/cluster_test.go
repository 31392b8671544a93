package check_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/pynenc/piceli/internal/check"
	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/kube"
	"github.com/pynenc/piceli/internal/sandbox"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
	"github.com/pynenc/piceli/internal/spec"
)

const token = "header-token-4f1c" // sent as a header; must never reach an excerpt

// app is a loopback HTTP server standing in for the container behind a
// Service.
func app(t *testing.T) netip.AddrPort {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("hello from piceli's app")) })
	mux.HandleFunc("POST /login", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Token") != token {
			http.Error(w, "who are you", http.StatusUnauthorized)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("GET /slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return netip.MustParseAddrPort(strings.TrimPrefix(srv.URL, "http://"))
}

// closedPort returns a loopback address nothing listens on.
func closedPort(t *testing.T) netip.AddrPort {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().(*net.TCPAddr).AddrPort()
	ln.Close()
	return addr
}

// backend creates Service name (port 80 to the pods' port 8080) and one
// ready pod behind it whose port 8080 kwok forwards to target.
func backend(t *testing.T, sb *sandboxtest.Sandbox, ns, name string, target netip.AddrPort) {
	t.Helper()
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app": name},
			Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080)}}},
	}
	if _, err := sb.Clientset.CoreV1().Services(ns).Create(t.Context(), svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pod := sb.RunPod(t, ns, name)
	sb.ForwardPod(t, ns, pod.Name, 8080, target)
}

func runner(t *testing.T, sb *sandboxtest.Sandbox, ns string) *check.Runner {
	t.Helper()
	c, err := kube.Connect(t.Context(), kube.Options{Kubeconfig: sb.Kubeconfig, Context: sb.Context})
	if err != nil {
		t.Fatal(err)
	}
	return &check.Runner{Client: c, Namespace: ns, Release: "shop", Interval: 200 * time.Millisecond,
		Redact: check.NewRedactor([][]byte{[]byte(token)})}
}

func httpCheck(service string, edit func(*spec.HTTPCheck)) spec.Check {
	h := &spec.HTTPCheck{Service: service, Port: 80, Path: "/", ExpectStatus: 200, Method: "GET"}
	if edit != nil {
		edit(h)
	}
	return spec.Check{Name: "web", Timeout: 5 * time.Second, Retries: 1, Backoff: 100 * time.Millisecond, HTTP: h}
}

type want struct {
	pass     bool
	attempts int
	inError  string
	excerpt  string
}

func (w want) check(t *testing.T, got journal.Check) {
	t.Helper()
	t.Logf("Run() = %+v", got)
	if got.Passed != w.pass || got.Attempts != w.attempts {
		t.Errorf("Run() = %+v, want passed %v after %d attempts", got, w.pass, w.attempts)
	}
	if !strings.Contains(got.Error, w.inError) || (w.pass && got.Error != "") {
		t.Errorf("Run() error = %q, want it to contain %q", got.Error, w.inError)
	}
	if !strings.Contains(got.Excerpt, w.excerpt) {
		t.Errorf("Run() excerpt = %q, want it to contain %q", got.Excerpt, w.excerpt)
	}
	if strings.Contains(got.Excerpt+got.Error, token) {
		t.Errorf("Run() shows the header's token: %+v", got)
	}
}

// http and tcp checks reach a Service's pod through a loopback forward,
// and fail, with the reason, when the answer or the port is not as
// declared.
func TestNetworkChecks(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	ns := sb.Namespace(t)
	backend(t, sb, ns, "web", app(t))
	backend(t, sb, ns, "down", closedPort(t))
	r := runner(t, sb, ns)
	tests := []struct {
		name  string
		check spec.Check
		want  want
	}{
		{"the expected answer passes", httpCheck("web", func(h *spec.HTTPCheck) { h.BodyContains, h.BodyRegexp = "hello", "^hello .* app$" }),
			want{pass: true, attempts: 1, excerpt: "GET / → 200 OK\nhello from piceli's app"}},
		{"another status fails after its retries", httpCheck("web", func(h *spec.HTTPCheck) { h.ExpectStatus = 201 }),
			want{attempts: 2, inError: "GET / answered status 200, want 201", excerpt: "200 OK"}},
		{"a body without the text fails", httpCheck("web", func(h *spec.HTTPCheck) { h.BodyContains = "goodbye" }),
			want{attempts: 2, inError: `the body of GET / does not contain "goodbye"`}},
		{"a body not matching fails", httpCheck("web", func(h *spec.HTTPCheck) { h.BodyRegexp = "^bye" }),
			want{attempts: 2, inError: `the body of GET / does not match "^bye"`}},
		{"the method and headers are sent", httpCheck("web", func(h *spec.HTTPCheck) {
			h.Method, h.Path, h.ExpectStatus, h.Headers = "POST", "/login", 204, map[string]string{"X-Token": token}
		}), want{pass: true, attempts: 1, excerpt: "POST /login → 204 No Content"}},
		{"a slow answer times out", func() spec.Check {
			c := httpCheck("web", func(h *spec.HTTPCheck) { h.Path = "/slow" })
			c.Timeout, c.Retries = 700*time.Millisecond, 0
			return c
		}(), want{attempts: 1, inError: "timed out after 700ms"}},
		{"nothing listening in the pod fails with the pod's reason", httpCheck("down", nil),
			want{attempts: 2, inError: "connection refused"}},
		{"a service that does not exist fails", httpCheck("nope", nil),
			want{attempts: 2, inError: `read Service/` + ns + `/nope: services "nope" not found`}},
		{"tcp to a listening port passes", spec.Check{Name: "tcp", Timeout: 5 * time.Second, TCP: &spec.TCPCheck{Service: "web", Port: 80}},
			want{pass: true, attempts: 1, excerpt: "connected to web:80"}},
		{"tcp to a closed port fails", spec.Check{Name: "tcp", Timeout: 5 * time.Second, TCP: &spec.TCPCheck{Service: "down", Port: 80}},
			want{attempts: 1, inError: "down:80 closed the connection at once"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.want.check(t, r.Run(t.Context(), tt.check))
		})
	}
}

// A job check runs its Job to completion, keeps its logs' tail, and
// deletes it; one whose pods cannot start fails with the Job's reason and
// the pods' diagnosis.
func TestJobChecks(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	ns := sb.Namespace(t)
	logs := sandboxtest.WriteCRILog(t, "migrating", "schema at version 7")
	sb.OnEveryPod(t, ns, sandboxtest.PodRule{Selector: map[string]string{check.CheckOfLabel: "shop"}, Logs: logs})
	r := runner(t, sb, ns)
	r.Jobs = map[string]*unstructured.Unstructured{"migrate": {Object: map[string]any{
		"apiVersion": "batch/v1", "kind": "Job", "metadata": map[string]any{"name": "migrate", "namespace": ns},
		"spec": map[string]any{"template": map[string]any{"spec": map[string]any{
			"restartPolicy": "Never", "containers": []any{map[string]any{"name": "migrate", "image": "example.invalid/api:1"}},
		}}},
	}}}
	stuck := sb.SimulateAnnotations(t, sandbox.SimulateImagePullBackOff)
	tests := []struct {
		name  string
		check spec.Check
		want  want
	}{
		{"a Job of the check passes with its logs", spec.Check{Name: "Smoke test", Timeout: time.Minute, Job: &spec.JobCheck{Image: "example.invalid/smoke:1", Command: []string{"/smoke"}}},
			want{pass: true, attempts: 1, excerpt: "container check:\nmigrating\nschema at version 7"}},
		{"a copy of a composition Job passes", spec.Check{Name: "migrate", Timeout: time.Minute, Job: &spec.JobCheck{From: "migrate"}},
			want{pass: true, attempts: 1, excerpt: "container migrate:\nmigrating"}},
		{"a Job whose pod cannot start fails with why", spec.Check{Name: "stuck", Timeout: 5 * time.Second, Job: &spec.JobCheck{Image: "example.invalid/x:1", Annotations: stuck}},
			want{attempts: 1, inError: "failed: DeadlineExceeded: Job was active longer than specified deadline (pod "}},
		{"an unknown composition Job fails", spec.Check{Name: "nope", Timeout: time.Minute, Job: &spec.JobCheck{From: "nope"}},
			want{attempts: 1, inError: `the composition declares no Job "nope"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.want.check(t, r.Run(t.Context(), tt.check))
		})
	}
	sandboxtest.Eventually(t, time.Minute, "the checks' Jobs deleted", func(ctx context.Context) (bool, error) {
		jobs, err := sb.Clientset.BatchV1().Jobs(ns).List(ctx, metav1.ListOptions{LabelSelector: check.CheckOfLabel + "=shop"})
		return err == nil && len(jobs.Items) == 0, err
	})
}
