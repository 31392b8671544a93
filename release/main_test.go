package release_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// moduleDir is the package directory, where go list runs; the examples run
// in a project directory TestMain writes beside the sandbox.
var moduleDir string

// TestMain prepares the examples' project: a release.toml and a manifest
// file in a temporary directory, targeting a fresh namespace of the
// sandbox, and runs the examples there. Without a sandbox the examples
// cannot run: locally they are left out with a message (tests still run),
// under CI=true that is a failure, as for every cluster test.
func TestMain(m *testing.M) {
	flag.Parse()
	moduleDir, _ = os.Getwd()
	sb, err := sandboxtest.Find()
	if err != nil {
		if os.Getenv("CI") == "true" {
			fmt.Fprintf(os.Stderr, "release examples need the sandbox, and CI requires it: %v\n", err)
			os.Exit(1)
		}
		fmt.Fprintf(os.Stderr, "release: examples left out, no sandbox answers (%v); start one with `piceli sandbox up`\n", err)
		if flag.Lookup("test.run").Value.String() == "" {
			flag.Set("test.run", "^Test")
		}
		os.Exit(m.Run())
	}
	dir, cleanup, err := exampleProject(sb)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Chdir(dir)
	code := m.Run()
	os.Chdir(moduleDir)
	cleanup()
	os.Exit(code)
}

// exampleProject writes the project the examples open and returns its
// directory and how to remove it and its namespace.
func exampleProject(sb *sandboxtest.Sandbox) (string, func(), error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ns, err := sb.Clientset.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		GenerateName: "release-example-", Labels: map[string]string{sandboxtest.TestLabel: "true"},
	}}, metav1.CreateOptions{})
	if err != nil {
		return "", nil, fmt.Errorf("create the examples' namespace: %w", err)
	}
	dir, err := os.MkdirTemp("", "piceli-release-example-")
	if err != nil {
		return "", nil, err
	}
	cleanup := func() {
		os.RemoveAll(dir)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		sb.Clientset.CoreV1().Namespaces().Delete(ctx, ns.Name, metav1.DeleteOptions{})
	}
	files := map[string]string{
		"release.toml": fmt.Sprintf("[target]\nkubeconfig = %q\ncontext = %q\nnamespace = %q\n\n[release]\nname = \"hello\"\ncomposition = \"manifests/\"\nready_timeout = \"1m\"\n", sb.Kubeconfig, sb.Context, ns.Name),
		"manifests/hello.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: greeting
data:
  text: hello
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: registry.example/web@sha256:0000000000000000000000000000000000000000000000000000000000000001
`,
	}
	for name, body := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			cleanup()
			return "", nil, err
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			cleanup()
			return "", nil, err
		}
	}
	return dir, cleanup, nil
}
