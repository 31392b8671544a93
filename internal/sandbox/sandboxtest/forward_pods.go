package sandboxtest

import (
	"context"
	"net/netip"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/pynenc/piceli/internal/sandbox"
)

// PodRule says what kwok does for each pod a test does not know the name
// of in advance (a Deployment's or a Job's): forward Port to Target, and
// serve Logs (a CRI-format file, see WriteCRILog) as its logs. Zero
// fields are left out.
type PodRule struct {
	Selector map[string]string // pods whose labels match; nil matches every pod
	Port     int32
	Target   netip.AddrPort // must be on loopback
	Logs     string
}

// OnEveryPod applies rule, until the test ends or the returned function
// is called, to every pod of namespace that matches it, as each appears
// (polling every 100ms): for a pod a controller creates, kwok's
// port-forward and logs objects must name it. The returned function stops
// the polling and waits for it to end, so a test that inspects the
// requests a command sends can keep the rule's own out of them; the kwok
// objects already made stay.
func (s *Sandbox) OnEveryPod(t testing.TB, namespace string, rule PodRule) (stop func()) {
	t.Helper()
	if rule.Port != 0 && !rule.Target.Addr().IsLoopback() {
		t.Fatalf("port-forward target %s is not loopback; the sandbox only sends traffic to 127.0.0.1/::1", rule.Target)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := map[string]bool{} // pods ruled; only the polling goroutine uses it
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			s.rulePods(ctx, t, namespace, rule, done)
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	var once sync.Once
	stop = func() { once.Do(func() { cancel(); wg.Wait() }) }
	t.Cleanup(stop)
	return stop
}

// rulePods creates the kwok objects for matching pods not ruled yet.
func (s *Sandbox) rulePods(ctx context.Context, t testing.TB, namespace string, rule PodRule, done map[string]bool) {
	list, err := s.Clientset.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: labels.SelectorFromSet(rule.Selector).String()})
	if err != nil {
		return // the test's own waits report a cluster that stopped answering
	}
	for _, p := range list.Items {
		if done[p.Name] {
			continue
		}
		if rule.Port != 0 {
			if _, err := s.Dynamic.Resource(sandbox.PortForwardResource).Namespace(namespace).Create(ctx, sandbox.PortForward(namespace, p.Name, rule.Port, rule.Target), metav1.CreateOptions{}); err != nil && ctx.Err() == nil {
				t.Errorf("create PortForward for Pod/%s/%s: %v", namespace, p.Name, err)
			}
		}
		if rule.Logs != "" {
			if _, err := s.Dynamic.Resource(sandbox.LogsResource).Namespace(namespace).Create(ctx, sandbox.PodLogs(namespace, p.Name, rule.Logs), metav1.CreateOptions{}); err != nil && ctx.Err() == nil {
				t.Errorf("create Logs for Pod/%s/%s: %v", namespace, p.Name, err)
			}
		}
		done[p.Name] = true
	}
}
