package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/readiness"
	"github.com/pynenc/piceli/internal/sandbox"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// apps is the sandbox the app tests (issue 11) run on: one of this test
// binary's own, started by the built piceli binary as a user starts one
// (`piceli sandbox up`, whose agent is `piceli sandbox agent`), with one
// node. The shared sandbox may have been started without an agent, by an
// older piceli. TestMain stops it.
var apps struct {
	once      sync.Once
	bin, name string
	dir       string
	sb        *sandboxtest.Sandbox
	missing   []string
	err       error
}

// appsSandbox starts the app tests' sandbox on first use and returns it;
// it is unavailable (skip, or failure under CI=true) when the binary cache
// is cold.
func appsSandbox(t *testing.T) *sandboxtest.Sandbox {
	t.Helper()
	apps.once.Do(func() { startAppsSandbox(piceliBinary(t)) })
	if len(apps.missing) > 0 {
		sandboxtest.Unavailable(t, fmt.Sprintf("binaries %v missing from the sandbox cache", apps.missing))
	}
	if apps.err != nil {
		t.Fatalf("start the app tests' sandbox: %v", apps.err)
	}
	return apps.sb
}

func startAppsSandbox(bin string) {
	probe, err := sandbox.Open(sandbox.Options{})
	if err != nil {
		apps.err = err
		return
	}
	if apps.missing = probe.Binaries().Missing(); len(apps.missing) > 0 {
		return
	}
	if apps.dir, apps.err = os.MkdirTemp("", "piceli-apps-sandbox-"); apps.err != nil {
		return
	}
	apps.bin, apps.name = bin, fmt.Sprintf("apps%d", time.Now().UnixNano()%1_000_000_000)
	out, err := appsPiceli("sandbox", "up", "--tools-dir", os.DevNull)
	if err != nil {
		apps.err = err
		return
	}
	kubeconfig := regexp.MustCompile(`(?m)^kubeconfig: *(\S+)$`).FindStringSubmatch(out)
	kubeContext := regexp.MustCompile(`(?m)^context: *(\S+)$`).FindStringSubmatch(out)
	if kubeconfig == nil || kubeContext == nil {
		apps.err = fmt.Errorf("piceli sandbox up printed no kubeconfig and context:\n%s", out)
		return
	}
	apps.sb, apps.err = sandboxtest.Connect(kubeconfig[1], kubeContext[1])
}

// appsPiceli runs the built binary's sandbox command args on the app tests'
// sandbox and returns its standard output.
func appsPiceli(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, apps.bin, append(args, "--name", apps.name, "--dir", apps.dir)...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("piceli %v: %w\n%s%s", args, err, stdout.String(), stderr.String())
	}
	return stdout.String(), nil
}

// stopAppsSandbox stops the app tests' sandbox if it was started.
func stopAppsSandbox() error {
	if apps.bin == "" {
		return nil
	}
	defer os.RemoveAll(apps.dir)
	out, err := appsPiceli("sandbox", "down", "-o", "json")
	if err != nil {
		return err
	}
	var doc sandbox.DownDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil || doc.Schema != sandbox.DownSchema || !doc.Stopped || doc.Name != apps.name {
		return fmt.Errorf("sandbox down -o json = %q (%v), want %s stopping %s", out, err, sandbox.DownSchema, apps.name)
	}
	return nil
}

// assertAllCurrent checks that every object p declares is ready by
// Piceli's rules (readiness.Compute) on the cluster. A workload that a
// HorizontalPodAutoscaler of p scales may be resized after apply finished
// (the autoscaler, applied in a later stage, raises it to its minimum on
// its own schedule), so it gets a bounded while to settle again.
func (r *testRelease) assertAllCurrent(t *testing.T, p *plan.Plan) {
	t.Helper()
	scaled := autoscaledBy(p)
	for _, s := range p.Steps {
		wait := time.Duration(0)
		if scaled[s.Ref.Kind+"/"+s.Ref.Name] {
			wait = autoscaledSettle
		}
		live, res, err := r.settle(t, s, wait, func(live *unstructured.Unstructured) bool {
			return readiness.Compute(live).Status == readiness.Current
		})
		if err != nil {
			t.Errorf("get %s: %v", s.Ref, err)
			continue
		}
		if !res {
			got := readiness.Compute(live)
			t.Errorf("%s is %s (%s), not current", s.Ref, got.Status, got.Message)
		}
	}
}

// autoscaledSettle bounds the wait for a workload an autoscaler resized.
const autoscaledSettle = 90 * time.Second

// settle reads s until ok holds or wait has passed, and returns the last
// object read and whether ok held.
func (r *testRelease) settle(t *testing.T, s plan.Step, wait time.Duration, ok func(*unstructured.Unstructured) bool) (*unstructured.Unstructured, bool, error) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for {
		live, err := r.get(t, s)
		if err != nil {
			return nil, false, err
		}
		if ok(live) {
			return live, true, nil
		}
		if time.Now().After(deadline) {
			return live, false, nil
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// autoscaledBy returns "Kind/name" of each workload a
// HorizontalPodAutoscaler in p scales.
func autoscaledBy(p *plan.Plan) map[string]bool {
	scaled := map[string]bool{}
	for _, s := range p.Steps {
		if s.Ref.Kind != "HorizontalPodAutoscaler" {
			continue
		}
		kind, _, _ := unstructured.NestedString(s.Manifest, "spec", "scaleTargetRef", "kind")
		name, _, _ := unstructured.NestedString(s.Manifest, "spec", "scaleTargetRef", "name")
		scaled[kind+"/"+name] = true
	}
	return scaled
}

// diffExitCode runs `release diff --exit-code` and wants exit 0: nothing
// would change after an apply.
func (r *testRelease) diffExitCode(t *testing.T) {
	t.Helper()
	res := run(t, "release", "diff", "--spec", r.spec, "--exit-code")
	if res.code != ExitOK {
		t.Errorf("release diff --exit-code after apply: exit %d\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
}

// loadBalancerIngress is the list of ingress IPs of a Service.
func loadBalancerIngress(u *unstructured.Unstructured) []string {
	ingress, _, _ := unstructured.NestedSlice(u.Object, "status", "loadBalancer", "ingress")
	var ips []string
	for _, in := range ingress {
		m, _ := in.(map[string]any)
		ip, _ := m["ip"].(string)
		ips = append(ips, ip)
	}
	return ips
}
