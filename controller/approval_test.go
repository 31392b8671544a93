package controller

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pynenc/piceli/api/v1alpha1"
	"github.com/pynenc/piceli/controller/source"
	"github.com/pynenc/piceli/object"
	"github.com/pynenc/piceli/plan"
)

func stepOf(a plan.Action, name string) plan.Step {
	return plan.Step{Action: a, Ref: object.Ref{Kind: "ConfigMap", Namespace: "app", Name: name}}
}

func TestPolicyApprovesOnlyPlansWithinIt(t *testing.T) {
	pol := &v1alpha1.Policy{Actions: []string{"create", "update"}, MaxObjects: 2}
	for _, tc := range []struct {
		name   string
		steps  []plan.Step
		refuse string // "" approves; else text the refusal must name
	}{
		{"creates and updates", []plan.Step{stepOf(plan.Create, "a"), stepOf(plan.Update, "b"), stepOf(plan.NoOp, "c")}, ""},
		{"a delete", []plan.Step{stepOf(plan.Update, "a"), stepOf(plan.Delete, "b")}, "delete ConfigMap/app/b"},
		{"a replace", []plan.Step{stepOf(plan.Replace, "a")}, "replace"},
		{"too many objects", []plan.Step{stepOf(plan.Create, "a"), stepOf(plan.Create, "b"), stepOf(plan.Create, "c")}, "changes 3 objects"},
		{"no-ops do not count", []plan.Step{stepOf(plan.Create, "a"), stepOf(plan.Create, "b"), stepOf(plan.NoOp, "c"), stepOf(plan.NoOp, "d")}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := PolicyRefuses(pol, &plan.Plan{Steps: tc.steps})
			if (tc.refuse == "") != (got == "") || !strings.Contains(got, tc.refuse) {
				t.Fatalf("PolicyRefuses = %q; want %q", got, tc.refuse)
			}
		})
	}
}

func TestAnApprovalMatchesOnlyItsPlan(t *testing.T) {
	full := "sha256:" + strings.Repeat("ab", 32)
	for given, want := range map[string]bool{
		full: true, full[7:19]: true, "sha256:" + full[7:19]: true, full[7:]: true,
		full[7:18]: false, "sha256:" + strings.Repeat("cd", 32): false, "": false,
	} {
		if got := matches(full, given); got != want {
			t.Errorf("matches(%q) = %t; want %t", given, got, want)
		}
	}
}

func TestAWorkspaceStaysUnderItsRoot(t *testing.T) {
	for _, bad := range [][2]string{{"..", "x"}, {"a/b", "x"}, {"ns", "../../etc"}, {"ns", `x\y`}, {"", "x"}} {
		if _, err := workspaceOf("/work", bad[0], bad[1]); err == nil {
			t.Errorf("workspaceOf(%q, %q) was accepted", bad[0], bad[1])
		}
	}
	ws, err := workspaceOf("/work", "shop", "web.v2")
	if err != nil || ws.dir != "/work/releases/shop/web.v2" {
		t.Fatalf("workspaceOf(shop, web.v2) = %q, %v", ws.dir, err)
	}
	for _, bad := range []string{"../x", "sha256:AB", "a/b", ""} {
		if _, err := ws.revisionDir(sourceRevision(bad)); err == nil {
			t.Errorf("revision %q became a directory", bad)
		}
	}
}

func TestDescribedSourcesCarryNoPassword(t *testing.T) {
	got := DescribeSource(v1alpha1.Source{Git: &v1alpha1.GitSource{URL: "https://user:hunter2@git.example/repo.git", Branch: "main", Path: "deploy"}})
	if strings.Contains(got, "hunter2") || got != "https://git.example/repo.git branch main path deploy" {
		t.Fatalf("DescribeSource = %q", got)
	}
	if got := DescribeSource(v1alpha1.Source{OCI: &v1alpha1.OCISource{URL: "oci://r.example/app", SemVer: ">=1.0.0"}}); got != "oci://r.example/app semver >=1.0.0" {
		t.Fatalf("DescribeSource = %q", got)
	}
}

func sourceRevision(id string) source.Revision { return source.Revision{ID: id} }

func TestTheControllerNeverRunsACredentialProgram(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "exec.kubeconfig")
	kc := `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: /bin/false, interactiveMode: Never}}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
`
	if err := os.WriteFile(path, []byte(kc), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := restConfig(Options{Kubeconfig: path, Context: "c"}); err == nil || !strings.Contains(err.Error(), "credential program") {
		t.Fatalf("restConfig of an exec user = %v; want a refusal", err)
	}
}

// The controller's own client is not held to client-go's default of five
// requests a second: every pass writes a status, so that limit alone made
// a pass over 200 Releases take 40 s. Options may set another limit.
func TestTheControllersClientRateLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "token.kubeconfig")
	kc := `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
`
	if err := os.WriteFile(path, []byte(kc), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		qps       float32
		burst     int
		wantQPS   float32
		wantBurst int
	}{{0, 0, DefaultQPS, DefaultBurst}, {20, 40, 20, 40}} {
		cfg, err := restConfig(Options{Kubeconfig: path, Context: "c", QPS: tt.qps, Burst: tt.burst})
		if err != nil {
			t.Fatal(err)
		}
		if cfg.QPS != tt.wantQPS || cfg.Burst != tt.wantBurst {
			t.Errorf("restConfig(qps %v, burst %d): qps %v, burst %d; want %v, %d", tt.qps, tt.burst, cfg.QPS, cfg.Burst, tt.wantQPS, tt.wantBurst)
		}
	}
	o := Options{Kubeconfig: path, Context: "c", Namespace: "n", ServiceAccount: "s", WorkDir: t.TempDir(), StateKeyFile: "k", QPS: -1}
	if err := o.check(); err == nil || !strings.Contains(err.Error(), "rate limit") {
		t.Errorf("check() with a negative qps = %v, want a refusal", err)
	}
}
