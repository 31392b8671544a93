package access_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/pynenc/piceli/internal/access"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// service creates a Service selecting app=name, port 80 to the pods'
// named port http.
func service(t *testing.T, sb *sandboxtest.Sandbox, ns, name string) {
	t.Helper()
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: corev1.ServiceSpec{
			Selector: map[string]string{"app": name},
			Ports:    []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromString("http")}},
		},
	}
	if _, err := sb.Clientset.CoreV1().Services(ns).Create(t.Context(), svc, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create Service/%s/%s: %v", ns, name, err)
	}
}

// pod runs a pod of app=app whose port http (8080) kwok forwards to a
// fresh loopback server; it returns the server's token.
func pod(t *testing.T, sb *sandboxtest.Sandbox, ns, app, name string) string {
	t.Helper()
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{"app": app}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name: "main", Image: "example.invalid/fake:1",
			Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}},
		}}},
	}
	pods := sb.Clientset.CoreV1().Pods(ns)
	if _, err := pods.Create(t.Context(), p, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create Pod/%s/%s: %v", ns, name, err)
	}
	srv := sandboxtest.LoopbackHTTP(t)
	sb.ForwardPod(t, ns, name, 8080, srv.Addr)
	sandboxtest.Eventually(t, time.Minute, "Pod/"+ns+"/"+name+" Ready", func(ctx context.Context) (bool, error) {
		got, err := pods.Get(ctx, name, metav1.GetOptions{})
		return err == nil && ready(got), err
	})
	return srv.Token
}

func ready(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
			return p.DeletionTimestamp == nil
		}
	}
	return false
}

// get fetches url without keeping the connection.
func get(url string) (string, error) {
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true, Proxy: nil}}
	resp, err := client.Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

// events collects a session's events.
type events struct {
	mu  sync.Mutex
	all []access.Event
}

func (e *events) add(ev access.Event) { e.mu.Lock(); e.all = append(e.all, ev); e.mu.Unlock() }

func (e *events) of(kind access.EventKind) []access.Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []access.Event
	for _, ev := range e.all {
		if ev.Kind == kind {
			out = append(out, ev)
		}
	}
	return out
}

// A forward reaches the pod behind the Service on 127.0.0.1; when that pod
// is deleted it moves to the other ready pod and says so; Close leaves no
// listener and no goroutine.
func TestForwardReconnectsWhenThePodGoesAway(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	ns := sb.Namespace(t)
	service(t, sb, ns, "web")
	first := pod(t, sb, ns, "web", "web-a")
	second := pod(t, sb, ns, "web", "web-b") // younger: the forward starts on web-a
	sb.CloseIdleConnections()
	before := runtime.NumGoroutine()

	var ev events
	ctx := sandboxtest.Context(t, 2*time.Minute)
	s, err := access.Start(ctx, sb.RESTConfig, sb.Clientset, []access.Request{{Namespace: ns, Service: "web", Ports: []access.Port{{Name: "http", Port: 80, Local: access.Ephemeral}}}},
		access.Options{Interval: 200 * time.Millisecond, OnEvent: ev.add})
	if err != nil {
		t.Fatalf("Start() error = %v", err)
	}
	defer s.Close()
	if err := s.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	fw := s.Forwards()
	if len(fw) != 1 || !fw[0].Local.Addr().IsLoopback() {
		t.Fatalf("Forwards() = %+v, want one forward on loopback", fw)
	}
	url := fmt.Sprintf("http://%s/", fw[0].Local)
	if body, err := get(url); err != nil || body != first {
		t.Fatalf("GET %s = %q, %v; want web-a's token %q", url, body, err, first)
	}
	if f := ev.of(access.Forwarding); len(f) != 1 || f[0].Pod != "web-a" || f[0].Local != fw[0].Local {
		t.Errorf("forwarding events = %+v, want one for web-a at %s", f, fw[0].Local)
	}

	if err := sb.Clientset.CoreV1().Pods(ns).Delete(ctx, "web-a", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	sandboxtest.Eventually(t, time.Minute, "the forward to reach web-b", func(context.Context) (bool, error) {
		body, err := get(url)
		return body == second, err
	})
	r := ev.of(access.Reconnected)
	if len(r) != 1 || r[0].Pod != "web-b" || r[0].Previous != "web-a" || !strings.Contains(r[0].Reason, "web-a") {
		t.Errorf("reconnected events = %+v, want one from web-a to web-b saying why", r)
	}

	s.Close()
	sb.CloseIdleConnections()
	if _, err := net.DialTimeout("tcp", fw[0].Local.String(), time.Second); err == nil {
		t.Errorf("%s still accepts connections after Close", fw[0].Local)
	}
	sandboxtest.GoroutinesBack(t, before, "Close")
}

// A local port that is taken refuses the whole session, naming the port
// and the Service, and leaves nothing listening.
func TestStartRefusesATakenPort(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	ns := sb.Namespace(t)
	service(t, sb, ns, "web")
	service(t, sb, ns, "api")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	taken := ln.Addr().(*net.TCPAddr).Port
	free, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	freePort := free.Addr().(*net.TCPAddr).Port
	free.Close()

	_, err = access.Start(t.Context(), sb.RESTConfig, sb.Clientset, []access.Request{
		{Namespace: ns, Service: "web", Ports: []access.Port{{Port: 80, Local: freePort}}},
		{Namespace: ns, Service: "api", Ports: []access.Port{{Port: 80, Local: taken}}},
	}, access.Options{})
	var pt *access.PortTakenError
	if !errors.As(err, &pt) || pt.Component != "api" || pt.Tried[0] != taken {
		t.Fatalf("Start() error = %v, want a *PortTakenError for api on %d", err, taken)
	}
	if c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", freePort), time.Second); err == nil {
		c.Close()
		t.Errorf("web's port %d still listens after Start failed", freePort)
	}
}

// A Service without the port asked for is refused, naming what it has.
func TestStartRefusesAnUnknownServicePort(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	ns := sb.Namespace(t)
	service(t, sb, ns, "web")
	_, err := access.Start(t.Context(), sb.RESTConfig, sb.Clientset, []access.Request{
		{Namespace: ns, Service: "web", Ports: []access.Port{{Port: 81, Local: access.Ephemeral}}},
	}, access.Options{})
	if err == nil || !strings.Contains(err.Error(), "Service/"+ns+"/web has no port 81 (it has 80)") {
		t.Fatalf("Start() error = %v, want the missing port named", err)
	}
}

// Without a ready pod, WaitReady fails naming the Service and why.
func TestWaitReadyNamesAServiceWithoutPods(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	ns := sb.Namespace(t)
	service(t, sb, ns, "web")
	s, err := access.Start(t.Context(), sb.RESTConfig, sb.Clientset, []access.Request{
		{Namespace: ns, Service: "web", Ports: []access.Port{{Port: 80, Local: access.Ephemeral}}},
	}, access.Options{Interval: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	err = s.WaitReady(ctx)
	if err == nil || !strings.Contains(err.Error(), "Service/"+ns+"/web: Service/"+ns+"/web: no ready pod") {
		t.Fatalf("WaitReady() error = %v, want it to name web and say it has no ready pod", err)
	}
}

// A session that ended with the ctx it started with is not "closed": a
// WaitReady whose own ctx lives on still names each Service without a pod.
// (Forward's wait derives from the same ctx, and its cancellation can reach
// the session first.)
func TestWaitReadyAfterTheSessionsCtxEndedNamesTheService(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	ns := sb.Namespace(t)
	service(t, sb, ns, "web")
	ctx, cancel := context.WithCancel(t.Context())
	s, err := access.Start(ctx, sb.RESTConfig, sb.Clientset, []access.Request{
		{Namespace: ns, Service: "web", Ports: []access.Port{{Port: 80, Local: access.Ephemeral}}},
	}, access.Options{Interval: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	time.Sleep(300 * time.Millisecond) // a dial or two finds no ready pod
	cancel()
	<-s.Done()
	err = s.WaitReady(t.Context())
	if err == nil || !strings.Contains(err.Error(), "Service/"+ns+"/web: Service/"+ns+"/web: no ready pod") {
		t.Fatalf("WaitReady() error = %v, want it to name web and say it has no ready pod", err)
	}
}
