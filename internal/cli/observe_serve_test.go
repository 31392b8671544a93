package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/internal/archive"
	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
	"github.com/pynenc/piceli/observe"
)

// lensDeployment creates Deployment api in ns, its pod's port 8080
// forwarded by kwok to a loopback server, and waits for it; it returns
// the server and an archive file declaring the Deployment.
func lensDeployment(t *testing.T, sb *sandboxtest.Sandbox, ns string) (*sandboxtest.LoopbackServer, string) {
	t.Helper()
	backend := sandboxtest.LoopbackHTTP(t)
	sb.OnEveryPod(t, ns, sandboxtest.PodRule{Selector: map[string]string{"app": "api"}, Port: 8080, Target: backend.Addr})
	one := int32(1)
	labels := map[string]string{"app": "api"}
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: ns},
		Spec: appsv1.DeploymentSpec{Replicas: &one, Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "example.invalid/api:1"}}}}}}
	if _, err := sb.Clientset.AppsV1().Deployments(ns).Create(t.Context(), d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	sandboxtest.Eventually(t, 2*time.Minute, "Deployment api available", func(ctx context.Context) (bool, error) {
		got, err := sb.Clientset.AppsV1().Deployments(ns).Get(ctx, "api", metav1.GetOptions{})
		return err == nil && got.Status.AvailableReplicas == 1, err
	})
	ks, err := sb.Clientset.CoreV1().Namespaces().Get(t.Context(), "kube-system", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a := &archive.Archive{Schema: archive.Schema, Run: "r", Release: "lens", Plan: "p", Status: "finished", Namespaces: []string{ns},
		Target:  plan.Target{Server: sb.RESTConfig.Host, Context: sb.Context, Namespace: ns, ClusterUID: string(ks.UID)},
		Objects: []archive.Object{{Ref: object.Ref{Group: "apps", Kind: "Deployment", Namespace: ns, Name: "api"}, APIVersion: "apps/v1", Resource: "deployments", Action: "create", Declared: true, Outcome: "applied"}}}
	path := filepath.Join(t.TempDir(), "archive.json")
	if err := archive.Write(path, a); err != nil {
		t.Fatal(err)
	}
	return backend, path
}

// A forward saved with forward-save (which refuses a privileged port and
// a non-loopback address) is restored by serve --user; the forward
// reaches the loopback server through the API server; on SIGINT serve
// exits 0 and neither it nor the forward listens any more.
func TestServeExitsCleanlyOnSIGINT(t *testing.T) {
	t.Parallel()
	sb := sandboxtest.Cluster(t)
	ns := sb.Namespace(t)
	backend, archivePath := lensDeployment(t, sb, ns)
	prefsDir := filepath.Join(t.TempDir(), "forwards")
	local := freePort(t)
	save := []string{"observe", "forward-save", "api", "--user", "alice", "--prefs-dir", prefsDir, "--namespace", ns,
		"--target", "deployment/api", "--remote-port", "8080", "--kubeconfig", sb.Kubeconfig, "--context", sb.Context}
	for _, bad := range [][]string{{"--local-port", "80"}, {"--local-port", strconv.Itoa(local), "--address", "0.0.0.0"}} {
		if res := run(t, append(save, bad...)...); res.code != ExitRefused {
			t.Errorf("forward-save %v: exit %d, want %d: %s", bad, res.code, ExitRefused, res.stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(prefsDir, "alice.json")); err == nil {
		t.Errorf("a refused forward-save wrote the preferences file")
	}
	if res := run(t, append(save, "--local-port", strconv.Itoa(local))...); res.code != ExitOK {
		t.Fatalf("forward-save: exit %d: %s", res.code, res.stderr)
	}
	if info, err := os.Stat(filepath.Join(prefsDir, "alice.json")); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("preferences file: %v, mode %v; want owner-only", err, info.Mode().Perm())
	}
	res := run(t, "observe", "forward-list", "--user", "alice", "--prefs-dir", prefsDir, "-o", "json")
	if res.code != ExitOK || !strings.Contains(res.stdout, `"target": "deployment/api"`) {
		t.Fatalf("forward-list -o json: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}

	p := startPiceli(t, "", "observe", "serve", "--archive", archivePath, "--kubeconfig", sb.Kubeconfig, "--context", sb.Context,
		"--user", "alice", "--prefs-dir", prefsDir, "--port", "0")
	base, launch := serveURL(t, p)
	cookie := launchCookie(t, base+launch)
	if page := getBody(t, base+"/", ""); strings.Contains(page, launch[len("/?launch="):]) || !strings.Contains(page, "launch URL") {
		t.Errorf("GET / without the cookie = %q, want a page sending to the launch URL and carrying no secret", page)
	}
	fwd := waitRunning(t, base, cookie, "api")
	if body := getBody(t, "http://"+fwd, ""); body != backend.Token {
		t.Fatalf("GET through the restored forward = %q, want the loopback server's token", body)
	}
	if err := p.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if got := p.wait(t, 30*time.Second); got != "exit 0" {
		t.Fatalf("serve on SIGINT ended with %s, want exit 0:\n%s", got, p.out.String())
	}
	for _, addr := range []string{fwd, strings.TrimPrefix(base, "http://")} {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			t.Errorf("%s still listens after serve exited", addr)
		}
	}
}

var servingLine = regexp.MustCompile(`serving the operations lens at (http://127\.0\.0\.1:\d+)(/\?launch=[0-9a-f]{64})`)

// serveURL returns the base URL serve printed and its launch path.
func serveURL(t *testing.T, p *proc) (string, string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if m := servingLine.FindStringSubmatch(p.out.String()); m != nil {
			return m[1], m[2]
		}
		select {
		case <-p.done:
			t.Fatalf("serve ended early:\n%s", p.out.String())
		case <-time.After(100 * time.Millisecond):
		}
	}
	t.Fatalf("serve did not say where it serves:\n%s", p.out.String())
	return "", ""
}

// launchCookie opens the launch URL once, as a browser would, and
// returns the session cookie it sets ("name=value").
func launchCookie(t *testing.T, launchURL string) string {
	t.Helper()
	client := &http.Client{Timeout: 20 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Get(launchURL)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	cs := res.Cookies()
	if res.StatusCode != http.StatusSeeOther || len(cs) != 1 || !cs[0].HttpOnly || cs[0].SameSite != http.SameSiteStrictMode {
		t.Fatalf("GET of the launch URL = %d with cookies %v, want a redirect setting one HttpOnly SameSite=Strict cookie", res.StatusCode, cs)
	}
	return cs[0].Name + "=" + cs[0].Value
}

// waitRunning waits until the server lists the forward running and
// returns its local address.
func waitRunning(t *testing.T, base, cookie, name string) string {
	t.Helper()
	var last string
	for range 100 {
		last = getBody(t, base+"/v1/forwards", cookie)
		var doc struct {
			Forwards []observe.ForwardState `json:"forwards"`
		}
		if err := json.Unmarshal([]byte(last), &doc); err == nil {
			for _, f := range doc.Forwards {
				if f.Name == name && f.Running {
					return f.Local
				}
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("forward %s is not running: %s", name, last)
	return ""
}

// getBody GETs url, with cookie ("name=value") when not empty.
func getBody(t *testing.T, url, cookie string) string {
	t.Helper()
	var last error
	for range 20 {
		req, _ := http.NewRequest("GET", url, nil)
		if cookie != "" {
			req.Header.Set("Cookie", cookie)
		}
		res, err := (&http.Client{Timeout: 20 * time.Second}).Do(req)
		if err == nil {
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			return string(body)
		}
		last = err
		time.Sleep(250 * time.Millisecond)
	}
	t.Fatalf("GET %s: %v", url, last)
	return fmt.Sprint(last)
}
