package kube

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// kubeconfigWith writes a kubeconfig whose current-context is "current"
// (server https://current.invalid) and which also has the contexts
// "named" (server https://named.invalid, user plain), "exec" (user with an
// exec plugin) and "provider" (user with an auth provider).
func kubeconfigWith(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "target.kubeconfig")
	const text = `apiVersion: v1
kind: Config
current-context: current
clusters:
- name: current
  cluster: {server: "https://current.invalid"}
- name: named
  cluster: {server: "https://named.invalid"}
users:
- name: plain
  user: {token: "t"}
- name: execer
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: my-credential-plugin
      interactiveMode: Never
- name: provided
  user:
    auth-provider:
      name: oidc
      config: {idp-issuer-url: "https://issuer.invalid", client-id: "x"}
contexts:
- name: current
  context: {cluster: current, user: plain}
- name: named
  context: {cluster: named, user: plain}
- name: exec
  context: {cluster: named, user: execer}
- name: provider
  context: {cluster: named, user: provided}
`
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestConnectKubeconfig(t *testing.T) {
	dir := t.TempDir()
	file := kubeconfigWith(t, dir)
	missing := filepath.Join(dir, "missing.kubeconfig")
	tests := []struct {
		name       string
		opts       Options
		wantServer string
		wantErr    string
		wantExec   bool // the error also matches ErrExecNotAllowed
	}{{
		name:       "the named context is used, not the file's current-context",
		opts:       Options{Kubeconfig: file, Context: "named"},
		wantServer: "https://named.invalid",
	}, {
		name:    "an empty kubeconfig path is refused",
		opts:    Options{Context: "named"},
		wantErr: `connect to context "named": no kubeconfig file named (Piceli never reads $KUBECONFIG or ~/.kube/config)`,
	}, {
		name:    "an empty context is refused rather than falling back to current-context",
		opts:    Options{Kubeconfig: file},
		wantErr: `connect to a context in $DIR/target.kubeconfig: no context named (Piceli never uses the kubeconfig's current-context)`,
	}, {
		name:    "a missing file is named",
		opts:    Options{Kubeconfig: missing, Context: "named"},
		wantErr: `connect to context "named" in $DIR/missing.kubeconfig: read kubeconfig: open $DIR/missing.kubeconfig: no such file or directory`,
	}, {
		name:    "a context the file lacks lists the contexts it has",
		opts:    Options{Kubeconfig: file, Context: "prod"},
		wantErr: `connect to context "prod" in $DIR/target.kubeconfig: no such context; the file has "current", "exec", "named", "provider"`,
	}, {
		name:     "an exec credential plugin is refused unless allowed",
		opts:     Options{Kubeconfig: file, Context: "exec"},
		wantErr:  `connect to context "exec" in $DIR/target.kubeconfig: user "execer" runs exec credential plugin "my-credential-plugin": credential plugins run only when explicitly allowed`,
		wantExec: true,
	}, {
		name:       "an exec credential plugin is kept when allowed",
		opts:       Options{Kubeconfig: file, Context: "exec", AllowExec: true},
		wantServer: "https://named.invalid",
	}, {
		name:     "an auth provider is refused unless allowed",
		opts:     Options{Kubeconfig: file, Context: "provider"},
		wantErr:  `connect to context "provider" in $DIR/target.kubeconfig: user "provided" uses auth provider "oidc": credential plugins run only when explicitly allowed`,
		wantExec: true,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Connect(t.Context(), tt.opts)
			wantErr := strings.ReplaceAll(tt.wantErr, "$DIR", dir)
			if diff := cmp.Diff(wantErr, errString(err)); diff != "" {
				t.Fatalf("Connect(%+v) error (-want +got):\n%s", tt.opts, diff)
			}
			if err != nil {
				checkTargetError(t, err, tt.wantExec)
				return
			}
			if c.Server != tt.wantServer || c.ContextName != tt.opts.Context {
				t.Errorf("Connect(%+v) = server %q context %q, want %q %q", tt.opts, c.Server, c.ContextName, tt.wantServer, tt.opts.Context)
			}
			if tt.opts.AllowExec && c.Config.ExecProvider == nil {
				t.Errorf("Connect(%+v) dropped the allowed exec provider", tt.opts)
			}
		})
	}
}

func checkTargetError(t *testing.T, err error, wantExec bool) {
	t.Helper()
	if !errors.Is(err, ErrTarget) {
		t.Errorf("error %v does not match ErrTarget", err)
	}
	if got := errors.Is(err, ErrExecNotAllowed); got != wantExec {
		t.Errorf("errors.Is(%v, ErrExecNotAllowed) = %v, want %v", err, got, wantExec)
	}
}

// TestConnectIgnoresEnvironment proves that a valid $KUBECONFIG and
// ~/.kube/config are never a fallback for a missing named file.
func TestConnectIgnoresEnvironment(t *testing.T) {
	home := t.TempDir()
	valid := kubeconfigWith(t, home)
	if err := os.MkdirAll(filepath.Join(home, ".kube"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(valid, filepath.Join(home, ".kube", "config")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KUBECONFIG", valid)
	t.Setenv("HOME", home)
	missing := filepath.Join(t.TempDir(), "named.kubeconfig")

	_, err := Connect(t.Context(), Options{Kubeconfig: missing, Context: "named"})
	if !errors.Is(err, os.ErrNotExist) || !errors.Is(err, ErrTarget) {
		t.Errorf("Connect(missing file with valid $KUBECONFIG) = %v, want a not-exist error matching ErrTarget", err)
	}
}

func TestConnectLimits(t *testing.T) {
	file := kubeconfigWith(t, t.TempDir())
	tests := []struct {
		name      string
		qps       float32
		burst     int
		wantQPS   float32
		wantBurst int
	}{
		{name: "zero limits default to 2,000 QPS and a burst of 4,000", wantQPS: 2000, wantBurst: 4000},
		{name: "explicit limits are kept", qps: 5, burst: 7, wantQPS: 5, wantBurst: 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Connect(t.Context(), Options{Kubeconfig: file, Context: "named", QPS: tt.qps, Burst: tt.burst})
			if err != nil {
				t.Fatal(err)
			}
			if c.Config.QPS != tt.wantQPS || c.Config.Burst != tt.wantBurst {
				t.Errorf("Connect() limits = %v/%v, want %v/%v", c.Config.QPS, c.Config.Burst, tt.wantQPS, tt.wantBurst)
			}
		})
	}
}
