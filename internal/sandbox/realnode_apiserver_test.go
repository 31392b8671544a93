package sandbox_test

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"net"
	"net/netip"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/internal/sandbox"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// A pod on the real node, given only the address status reports (as
// KUBERNETES_SERVICE_HOST/PORT) and the TLS server name, with its
// ServiceAccount's mounted ca.crt and token, reaches the API server with
// verified TLS, by name and by address, and is known as its ServiceAccount;
// a name the certificate lacks is refused. The forwarder listens on the
// bridge's host address alone and leads to the API server alone: the pod
// sees the certificate the API server serves on loopback.
func TestRealNodePodReachesTheAPIServerWithVerifiedTLS(t *testing.T) {
	sb := openRealNode(t, 0)
	r := upRealNode(t, sb)
	bridgeIP := netip.MustParsePrefix(r.node.Subnet).Addr().Next()
	want := "https://" + netip.AddrPortFrom(bridgeIP, sandbox.APIForwardPort).String()
	if r.node.APIServer != want || r.node.APIServerName != sandbox.APIServerName {
		t.Fatalf("RealNode() API server for pods = %q, name %q; want %q, %q", r.node.APIServer, r.node.APIServerName, want, sandbox.APIServerName)
	}
	st := status(t, sb)
	if st.RealNode == nil || st.RealNode.APIServer != want || st.RealNode.APIServerName != sandbox.APIServerName {
		t.Fatalf("status real node = %+v; want API server %s", st.RealNode, want)
	}
	assertForwarderListensOnlyOnBridge(t, st, bridgeIP)

	r.loadNodeApp(t)
	ns := r.api.Namespace(t)
	if _, err := r.api.Clientset.CoreV1().ServiceAccounts(ns).Create(t.Context(),
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "api-client"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	env := append(r.node.APIServerEnv(), corev1.EnvVar{Name: "NODEAPP_SERVER_NAME", Value: r.node.APIServerName})
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "apicheck"},
		Spec: corev1.PodSpec{
			ServiceAccountName: "api-client", RestartPolicy: corev1.RestartPolicyNever,
			Containers: []corev1.Container{{Name: "check", Image: sandboxtest.NodeAppRef,
				ImagePullPolicy: corev1.PullIfNotPresent, Args: []string{"apicheck"}, Env: env}},
		},
	}
	start := time.Now()
	if _, err := r.api.Clientset.CoreV1().Pods(ns).Create(t.Context(), pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	phase := waitPodEnded(t, r.api, ns, pod.Name)
	t.Logf("Pod/%s/%s ended %s in %s", ns, pod.Name, phase, time.Since(start).Round(10*time.Millisecond))
	logs := podLogs(t, r.api, ns, pod.Name)
	t.Logf("apicheck printed:\n%s", logs)
	if phase != corev1.PodSucceeded {
		t.Fatalf("Pod/%s/%s ended %s; want Succeeded. Its output:\n%s", ns, pod.Name, phase, logs)
	}

	version, err := r.api.Clientset.Discovery().ServerVersion()
	if err != nil {
		t.Fatal(err)
	}
	user := "system:serviceaccount:" + ns + ":api-client"
	lines := strings.Split(strings.TrimSpace(logs), "\n")
	for _, want := range []string{"named " + version.GitVersion + " " + user, "address " + version.GitVersion + " " + user,
		"cert " + loopbackCertFingerprint(t, r)} {
		if !slices.Contains(lines, want) {
			t.Errorf("Pod/%s/%s printed no line %q:\n%s", ns, pod.Name, want, logs)
		}
	}
	if !slices.ContainsFunc(lines, func(l string) bool {
		return strings.HasPrefix(l, "wrong-name refused: ") && strings.Contains(l, "certificate")
	}) {
		t.Errorf("Pod/%s/%s did not refuse a server name the certificate lacks:\n%s", ns, pod.Name, logs)
	}
}

// assertForwarderListensOnlyOnBridge checks that status lists the API
// forwarder running, listening on the bridge's host address and port alone,
// and forwarding to the API server's loopback address (its command line).
func assertForwarderListensOnlyOnBridge(t *testing.T, st sandbox.Status, bridgeIP netip.Addr) {
	t.Helper()
	want := []string{netip.AddrPortFrom(bridgeIP, sandbox.APIForwardPort).String()}
	i := slices.IndexFunc(st.Components, func(c sandbox.ComponentStatus) bool { return c.Name == sandbox.APIForwarderName })
	if i < 0 || !st.Components[i].Running || !slices.Equal(st.Components[i].Listen, want) {
		t.Fatalf("status components = %+v; want %s running and listening on %v alone", st.Components, sandbox.APIForwarderName, want)
	}
	u, err := url.Parse(st.Server)
	if err != nil {
		t.Fatal(err)
	}
	args := processArgs(t, st.Components[i].PID)
	to := slices.Index(args, "--api-forward-to")
	if to < 0 || to+1 >= len(args) || args[to+1] != u.Host {
		t.Errorf("%s runs %q; want --api-forward-to %s, the API server", sandbox.APIForwarderName, args, u.Host)
	}
}

// loopbackCertFingerprint is the SHA-256 of the certificate the API server
// serves on its loopback address, verified with the sandbox's CA.
func loopbackCertFingerprint(t *testing.T, r *realNodeSandbox) string {
	t.Helper()
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(r.api.RESTConfig.CAData) {
		t.Fatal("the sandbox's kubeconfig holds no CA")
	}
	u, err := url.Parse(r.info.Server)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", u.Host, &tls.Config{RootCAs: roots, ServerName: u.Hostname()})
	if err != nil {
		t.Fatalf("TLS to the API server at %s: %v", u.Host, err)
	}
	defer conn.Close()
	sum := sha256.Sum256(conn.ConnectionState().PeerCertificates[0].Raw)
	return hex.EncodeToString(sum[:])
}

// waitPodEnded waits until the pod has Succeeded or Failed.
func waitPodEnded(t *testing.T, sb *sandboxtest.Sandbox, ns, name string) corev1.PodPhase {
	t.Helper()
	var phase corev1.PodPhase
	sandboxtest.Eventually(t, 2*time.Minute, "Pod/"+ns+"/"+name+" to end", func(ctx context.Context) (bool, error) {
		p, err := sb.Clientset.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		phase = p.Status.Phase
		return phase == corev1.PodSucceeded || phase == corev1.PodFailed, nil
	})
	return phase
}

// processArgs is a process's command line.
func processArgs(t *testing.T, pid int) []string {
	t.Helper()
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimRight(string(raw), "\x00"), "\x00")
}
