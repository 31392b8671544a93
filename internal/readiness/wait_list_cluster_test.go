package readiness_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/pynenc/piceli/internal/readiness"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// Targets that share a resource and a namespace are read with one LIST per
// poll, not a GET each; a lone target (the Namespace, or the last
// Deployment pending) is read with a GET.
// Deployments read from the LIST become current as they do from GETs.
func TestWaitListsTargetsThatShareAResourceAndNamespace(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	ns := sb.Namespace(t)
	targets := []readiness.Target{{GVR: schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}, Kind: "Namespace", Name: ns}}
	for i := range 3 {
		targets = append(targets, createDeployment(t, sb, ns, deployment(fmt.Sprintf("web-%d", i), 1, nil)))
	}
	var log requestLog
	cfg := rest.CopyConfig(sb.RESTConfig)
	cfg.Wrap(log.wrap)
	c, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	polls := 1
	report, err := readiness.Wait(testContext(t), c, targets, readiness.WaitOptions{
		Interval: 250 * time.Millisecond, Timeout: 90 * time.Second,
		OnPoll: func([]readiness.Target) { polls++ },
	})
	if err != nil {
		t.Fatalf("Wait(Namespace, 3 Deployments) = %v, want nil", err)
	}
	for _, o := range report.Objects {
		if o.Result.Status != readiness.Current {
			t.Errorf("Wait() reported %s as %+v, want current", o.Ref, o.Result)
		}
	}
	deploymentsPath := "/apis/apps/v1/namespaces/" + ns + "/deployments"
	got := log.all()
	lists, reads := 0, 0
	for _, r := range got {
		switch {
		case r == "GET "+deploymentsPath:
			lists++
			reads++
		case strings.HasPrefix(r, "GET "+deploymentsPath+"/"):
			reads++ // the last one pending, alone, is read with a GET
		}
	}
	if lists == 0 || reads != polls {
		t.Errorf("Wait() listed the Deployments %d times and read them %d times in %d polls, want one read a poll, LISTs while two or more are pending; requests:\n%s",
			lists, reads, polls, strings.Join(got, "\n"))
	}
	if n := countOf(got, "GET /api/v1/namespaces/"+ns); n != 1 {
		t.Errorf("Wait() read the Namespace %d times, want once (a GET, current at the first poll); requests:\n%s", n, strings.Join(got, "\n"))
	}
}

func countOf(xs []string, x string) int {
	n := 0
	for _, s := range xs {
		if s == x {
			n++
		}
	}
	return n
}

// requestLog records "METHOD path" of every request through its transport.
type requestLog struct {
	mu   sync.Mutex
	reqs []string
}

func (l *requestLog) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripper(func(r *http.Request) (*http.Response, error) {
		l.mu.Lock()
		l.reqs = append(l.reqs, r.Method+" "+r.URL.Path)
		l.mu.Unlock()
		return rt.RoundTrip(r)
	})
}

func (l *requestLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.reqs...)
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
