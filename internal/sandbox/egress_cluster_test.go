package sandbox_test

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/pynenc/piceli/internal/sandbox"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// A validating webhook (failurePolicy Fail) and an APIService, each backed
// by a Service whose ClusterIP no kube-proxy serves here, make the API
// server dial that ClusterIP: the sandbox's egress proxy refuses it, the
// write fails naming the refusal, the proxy counts the ClusterIP, and the
// API server never holds a connection to an address off the machine.
func TestSecurityAPIServerEgressStaysOnTheMachine(t *testing.T) {
	sb := agentSandbox(t)
	apiserver := componentPID(t, sb, "kube-apiserver")
	watch := watchPeers(t, apiserver)
	ns := sb.Namespace(t)

	hookIP := clusterIPService(t, sb, ns, "hook")
	registerWebhook(t, sb, ns, "hook")
	err := createUntilRefused(t, sb, ns)
	want := "piceli sandbox egress refuses " + hookIP + ":443"
	if !strings.Contains(err.Error(), want) {
		t.Errorf("create ConfigMap: %v; want the proxy's refusal %q", err, want)
	}
	t.Logf("create ConfigMap: %v", err)
	waitRefused(t, hookIP+":443")

	aggIP := clusterIPService(t, sb, ns, "aggregated")
	group := registerAPIService(t, sb, ns, "aggregated")
	waitRefused(t, aggIP+":443")
	if _, err := sb.Clientset.Discovery().RESTClient().Get().AbsPath("/apis/" + group + "/v1alpha1").DoRaw(t.Context()); err == nil {
		t.Errorf("GET /apis/%s/v1alpha1 succeeded; want it unavailable", group)
	}

	if bad := watch(); len(bad) > 0 {
		t.Errorf("kube-apiserver (pid %d) connected to %v, off this machine", apiserver, bad)
	}
	if e := sandboxStatus(t, sb).Egress; e == nil || !slices.Contains(e.RecentRefused, hookIP+":443") || !slices.Contains(e.RecentRefused, aggIP+":443") {
		t.Errorf("sandbox status egress = %+v; want both ClusterIPs among the refused", e)
	}
	log := agentLog(t)
	for _, ip := range []string{hookIP, aggIP} {
		if !strings.Contains(log, "egress proxy: refused "+ip+":443: not an address of this machine") {
			t.Errorf("agent log names no refusal of %s:443:\n%s", ip, log)
		}
	}
}

// componentPID is the pid of the sandbox's component name.
func componentPID(t *testing.T, sb *sandboxtest.Sandbox, name string) int {
	t.Helper()
	for _, c := range sandboxStatus(t, sb).Components {
		if c.Name == name {
			return c.PID
		}
	}
	t.Fatalf("sandbox %q has no %s", sb.Name, name)
	return 0
}

// watchPeers samples pid's TCP connections every few milliseconds until the
// returned function is called, which returns every non-loopback peer seen.
func watchPeers(t *testing.T, pid int) func() []netip.AddrPort {
	t.Helper()
	var (
		mu      sync.Mutex
		bad     []netip.AddrPort
		samples int
	)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			peers, err := sandbox.Peers(pid)
			mu.Lock()
			if err == nil {
				samples++
			}
			for _, p := range peers {
				if !p.Addr().IsLoopback() && !slices.Contains(bad, p) {
					bad = append(bad, p)
				}
			}
			mu.Unlock()
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	})
	return func() []netip.AddrPort {
		// Under load a sample can take seconds: let the sampler reach the
		// least number of samples that proves anything before stopping it.
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			mu.Lock()
			enough := samples >= 3
			mu.Unlock()
			if enough {
				break
			}
		}
		close(stop)
		wg.Wait()
		mu.Lock()
		defer mu.Unlock()
		// A sample reads every socket of the API server: under load a few
		// a second. The proxy's count is the main proof; these show that
		// no connection off the machine was even attempted for long.
		if samples < 3 {
			t.Errorf("only %d samples of kube-apiserver's connections; want at least 3", samples)
		}
		t.Logf("%d samples of kube-apiserver's connections", samples)
		return bad
	}
}

// clusterIPService creates a Service without selector on port 443 and
// returns its ClusterIP.
func clusterIPService(t *testing.T, sb *sandboxtest.Sandbox, ns, name string) string {
	t.Helper()
	svc, err := sb.Clientset.CoreV1().Services(ns).Create(t.Context(), &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 443}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ip, err := netip.ParseAddr(svc.Spec.ClusterIP)
	if err != nil || ip.IsLoopback() {
		t.Fatalf("Service/%s has ClusterIP %q; want an address off loopback", name, svc.Spec.ClusterIP)
	}
	return ip.String()
}

// registerWebhook makes Service ns/svc a validating webhook, failurePolicy
// Fail, for ConfigMaps labelled egress-test in ns.
func registerWebhook(t *testing.T, sb *sandboxtest.Sandbox, ns, svc string) {
	t.Helper()
	fail, none, port, timeout := admissionv1.Fail, admissionv1.SideEffectClassNone, int32(443), int32(5)
	hooks := sb.Clientset.AdmissionregistrationV1().ValidatingWebhookConfigurations()
	cfg, err := hooks.Create(t.Context(), &admissionv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: ns},
		Webhooks: []admissionv1.ValidatingWebhook{{
			Name:                    "egress.piceli.test",
			ClientConfig:            admissionv1.WebhookClientConfig{Service: &admissionv1.ServiceReference{Namespace: ns, Name: svc, Port: &port}},
			Rules:                   []admissionv1.RuleWithOperations{{Operations: []admissionv1.OperationType{admissionv1.Create}, Rule: admissionv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}}}},
			NamespaceSelector:       &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": ns}},
			ObjectSelector:          &metav1.LabelSelector{MatchLabels: map[string]string{"egress-test": "true"}},
			FailurePolicy:           &fail,
			SideEffects:             &none,
			AdmissionReviewVersions: []string{"v1"},
			TimeoutSeconds:          &timeout,
		}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := hooks.Delete(ctx, cfg.Name, metav1.DeleteOptions{}); err != nil {
			t.Errorf("delete ValidatingWebhookConfiguration/%s: %v", cfg.Name, err)
		}
	})
}

// createUntilRefused creates a matching ConfigMap until the webhook, once
// the API server has seen its configuration, makes the write fail, and
// returns that failure.
func createUntilRefused(t *testing.T, sb *sandboxtest.Sandbox, ns string) error {
	t.Helper()
	cms := sb.Clientset.CoreV1().ConfigMaps(ns)
	deadline := time.Now().Add(30 * time.Second)
	for i := 0; ; i++ {
		name := fmt.Sprintf("probe-%d", i)
		_, err := cms.Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"egress-test": "true"}}}, metav1.CreateOptions{})
		if err != nil {
			if _, gerr := cms.Get(t.Context(), name, metav1.GetOptions{}); gerr == nil {
				t.Fatalf("ConfigMap/%s exists although its create failed: %v", name, err)
			}
			return err
		}
		if time.Now().After(deadline) {
			t.Fatal("ConfigMaps are still created 30s after the webhook was registered")
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// registerAPIService registers v1alpha1 of a fresh group served by Service
// ns/svc, and returns the group.
func registerAPIService(t *testing.T, sb *sandboxtest.Sandbox, ns, svc string) string {
	t.Helper()
	group := ns + ".egress.piceli.test"
	dc, err := dynamic.NewForConfig(sb.RESTConfig)
	if err != nil {
		t.Fatal(err)
	}
	res := dc.Resource(schema.GroupVersionResource{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"})
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
		"metadata": map[string]any{"name": "v1alpha1." + group},
		"spec": map[string]any{
			"group": group, "version": "v1alpha1", "insecureSkipTLSVerify": true,
			"groupPriorityMinimum": int64(1000), "versionPriority": int64(15),
			"service": map[string]any{"namespace": ns, "name": svc, "port": int64(443)},
		},
	}}
	if _, err := res.Create(t.Context(), obj, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := res.Delete(ctx, obj.GetName(), metav1.DeleteOptions{}); err != nil {
			t.Errorf("delete APIService/%s: %v", obj.GetName(), err)
		}
	})
	return group
}

// waitRefused waits until the agent sandbox's egress proxy counts a
// refusal of dest.
func waitRefused(t *testing.T, dest string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		st, ok, err := shared.sb.EgressStats()
		if err != nil {
			t.Fatal(err)
		}
		if ok && st.Refused > 0 && slices.Contains(st.RecentRefused, dest) {
			t.Logf("egress proxy: %d allowed, %d refused, recently %v", st.Allowed, st.Refused, st.RecentRefused)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the egress proxy never refused %s: %+v (ok %t)", dest, st, ok)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// agentLog is the agent sandbox's agent log.
func agentLog(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(shared.sb.Layout().OwnDir(), sandbox.AgentName+".log"))
	if err != nil {
		t.Fatalf("read the agent's log: %v", err)
	}
	return string(raw)
}
