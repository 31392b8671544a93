package observe_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/observe"
)

// chromium is Debian's headless browser.
const chromium = "/usr/bin/chromium"

// The UI in headless Chromium shows each object with its state, stops and
// starts the user's restored forward (which then reaches the loopback
// server behind the pod), and shows a log tail; a screenshot is saved
// (PICELI_TEST_ARTIFACTS, else a temporary directory) and the test fails
// naming any element it does not find.
func TestUIInChromium(t *testing.T) {
	if _, err := exec.LookPath(chromium); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is missing under CI=true (install the Debian package chromium)", chromium)
		}
		t.Skipf("%s is missing; install the Debian package chromium", chromium)
	}
	l := newLens(t, 200)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "extra", Namespace: l.ns}}
	if _, err := l.sb.Clientset.CoreV1().ConfigMaps(l.ns).Create(t.Context(), cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	a := l.archiveOf(t, object.Ref{Group: "apps", Kind: "Deployment", Namespace: l.ns, Name: "api"}, object.Ref{Kind: "ConfigMap", Namespace: l.ns, Name: "gone"})
	prefs := observe.Prefs{Dir: filepath.Join(t.TempDir(), "forwards")}
	fw, err := observe.NewForwarder(t.Context(), l.cl)
	if err != nil {
		t.Fatal(err)
	}
	local := freePort(t)
	if err := prefs.Save("alice", fw.Scope(observe.Forward{Name: "api", Namespace: l.ns, Target: "deployment/api", Address: "127.0.0.1", LocalPort: local, RemotePort: 8080})); err != nil {
		t.Fatal(err)
	}
	s := serve(t, l, a, "alice", prefs)

	ctx := browser(t)
	shot := func() {
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Errorf("screenshot: %v", err)
			return
		}
		saveArtifact(t, "observe-ui.png", png)
	}
	defer shot()
	// The first call starts the browser, which lives as long as that
	// call's context: no timeout on it.
	if err := chromedp.Do(ctx, chromedp.Navigate(s.LaunchURL())); err != nil {
		t.Fatalf("open the UI: %v", err)
	}
	if at, err := chromedp.Run(ctx, chromedp.Location()); err != nil || at != s.URL() {
		t.Errorf("after the launch URL the browser is at %q (%v), want the clean URL %s", at, err, s.URL())
	}
	row := func(object, state string) string {
		return fmt.Sprintf(`#objects tr[data-object=%q][data-state=%q]`, object, state)
	}
	expect(t, ctx, "the present Deployment", row("Deployment/"+l.ns+"/api", "present"))
	expect(t, ctx, "its readiness", row("Deployment/"+l.ns+"/api", "present")+` td.readiness`)
	expect(t, ctx, "the missing ConfigMap", row("ConfigMap/"+l.ns+"/gone", "missing"))
	expect(t, ctx, "the undeclared ConfigMap", row("ConfigMap/"+l.ns+"/extra", "undeclared"))
	readiness := text(t, ctx, "the readiness", row("Deployment/"+l.ns+"/api", "present")+` td.readiness`)
	if readiness != "current" {
		t.Errorf("the UI shows Deployment api's readiness as %q, want current", readiness)
	}

	addr := fmt.Sprintf("127.0.0.1:%d", local)
	expect(t, ctx, "the restored forward, running", `#forwards tr[data-forward="api"][data-running="true"]`)
	run(t, ctx, "stop the forward", chromedp.Click(chromedp.CSS(`#forwards tr[data-forward="api"] button.stop`)))
	expect(t, ctx, "the forward, stopped", `#forwards tr[data-forward="api"][data-running="false"]`)
	if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		c.Close()
		t.Errorf("%s still listens after the UI stopped the forward", addr)
	}
	run(t, ctx, "start the forward", chromedp.Click(chromedp.CSS(`#forwards tr[data-forward="api"] button.start`)))
	expect(t, ctx, "the forward, running again", `#forwards tr[data-forward="api"][data-running="true"]`)
	if body := get(t, "http://"+addr+"/"); body != l.backend.Token {
		t.Errorf("GET through the forward the UI started = %q, want the loopback server's token", body)
	}

	expect(t, ctx, "the log target", `#log-target option[value="`+l.ns+` deployment/api"]`)
	run(t, ctx, "tail the log", chromedp.SetValue(chromedp.CSS(`#log-target`), l.ns+" deployment/api"),
		chromedp.SetValue(chromedp.CSS(`#log-lines-count`), "50"), chromedp.Click(chromedp.CSS(`#log-tail`)))
	var logs string
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(logs, "line 0000199") && time.Now().Before(deadline) {
		logs = text(t, ctx, "the log tail", `#log-lines`)
		time.Sleep(200 * time.Millisecond)
	}
	if lines := strings.Split(strings.TrimSpace(logs), "\n"); len(lines) != 50 || lines[49] != "line 0000199" {
		t.Errorf("the UI's log tail = %d lines ending %q, want the log's last 50", len(lines), lines[len(lines)-1])
	}
}

// browser starts headless Chromium with a fresh profile and no network
// beyond what the page asks for (loopback).
func browser(t *testing.T) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium), chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("headless", true), chromedp.Flag("no-sandbox", true), chromedp.Flag("disable-gpu", true),
		chromedp.Flag("no-first-run", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true), chromedp.WindowSize(1280, 1400),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(t.Context(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	return ctx
}

func run(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(c, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// text reads the text of the element sel.
func text(t *testing.T, ctx context.Context, what, sel string) string {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	s, err := chromedp.Run(c, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		t.Fatalf("read %s (%s): %v", what, sel, err)
	}
	return s
}

// expect fails the test when the element sel does not appear within 20s.
func expect(t *testing.T, ctx context.Context, what, sel string) {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Do(c, chromedp.WaitReady(chromedp.CSS(sel))); err != nil {
		t.Fatalf("the UI does not show %s (%s): %v", what, sel, err)
	}
}

// saveArtifact keeps data under $PICELI_TEST_ARTIFACTS (else a temporary
// directory that outlives the test) and logs where.
func saveArtifact(t *testing.T, name string, data []byte) {
	dir := os.Getenv("PICELI_TEST_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "piceli-test-artifacts")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Errorf("save %s: %v", name, err)
		return
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Errorf("save %s: %v", name, err)
		return
	}
	t.Logf("screenshot saved to %s", path)
}
