package guide_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/internal/guide"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// The getting-started guide runs, block by block, in a copy of this
// checkout (its tracked files, as a fresh clone has them) against the
// running sandbox, which the guide's own `sandbox up` must find and reuse.
func TestGettingStartedGuide(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	if sb.Context != "kwok-piceli" {
		t.Fatalf("the guide names context kwok-piceli; the sandbox under test is %s", sb.Context)
	}
	root := repoRoot(t)
	doc, err := os.ReadFile(filepath.Join(root, "docs", "getting-started.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := guide.Parse(doc)
	if err != nil {
		t.Fatalf("docs/getting-started.md: %v", err)
	}
	copyDir := cloneWorkingTree(t, root)
	sandboxDir, err := filepath.EvalSymlinks(sb.Dir)
	if err != nil {
		t.Fatal(err)
	}
	// The guide's paths name .piceli-sandbox in the checkout; the running
	// sandbox's state is elsewhere, so point both there.
	if err := os.Symlink(sandboxDir, filepath.Join(copyDir, ".piceli-sandbox")); err != nil {
		t.Fatal(err)
	}
	deleteNamespace(t, sb, "myapp")
	t.Cleanup(func() { deleteNamespace(t, sb, "myapp") })

	ctx := sandboxtest.Context(t, 10*time.Minute)
	env := append(os.Environ(), "PICELI_SANDBOX_DIR="+sandboxDir)
	if _, err := guide.Run(ctx, "docs/getting-started.md", blocks, guide.RunOptions{Dir: copyDir, Env: env, Log: testLog{t}}); err != nil {
		t.Fatal(err)
	}

	// The same guide, broken: a block that fails and a block whose output
	// lacks its expected line are each reported at their line.
	version := blocks[0] // make build; bin/piceli --version
	if !strings.Contains(version.Script, "bin/piceli --version\n") {
		t.Fatalf("the guide's first block no longer runs bin/piceli --version:\n%s", version.Script)
	}
	for name, b := range map[string]guide.Block{
		"a failing command":     {Line: version.Line, Script: "bin/piceli --no-such-flag\n"},
		"a missing output line": {Line: version.Line, Script: "bin/piceli --version\n", Expect: []string{"no such output"}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := guide.Run(ctx, "docs/getting-started.md", []guide.Block{b}, guide.RunOptions{Dir: copyDir, Env: env})
			want := fmt.Sprintf("docs/getting-started.md:%d: ", version.Line)
			if err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("broken guide: %v; want an error starting %q", err, want)
			}
		})
	}
}

// testLog sends a guide's output to the test log, line by line.
type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func repoRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Fatalf("find the checkout: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// cloneWorkingTree copies the tracked files of root, as they are in the
// working tree, into a temporary directory.
func cloneWorkingTree(t *testing.T, root string) string {
	t.Helper()
	out, err := exec.Command("git", "-C", root, "ls-files", "-z").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	dst := t.TempDir()
	for _, name := range bytes.Split(bytes.TrimRight(out, "\x00"), []byte{0}) {
		if err := copyFile(filepath.Join(root, string(name)), filepath.Join(dst, string(name))); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

func copyFile(src, dst string) error {
	info, err := os.Lstat(src)
	if os.IsNotExist(err) {
		return nil // deleted in the working tree, not yet in the index
	}
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, info.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// deleteNamespace deletes ns and waits until it is gone, so the guide
// starts from nothing and a rerun finds nothing left.
func deleteNamespace(t *testing.T, sb *sandboxtest.Sandbox, ns string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := sb.Clientset.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{})
	if apierrors.IsNotFound(err) {
		return
	}
	if err != nil {
		t.Errorf("delete namespace %s: %v", ns, err)
		return
	}
	for {
		_, err := sb.Clientset.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return
		}
		select {
		case <-ctx.Done():
			t.Errorf("namespace %s still there after a minute (last error: %v)", ns, err)
			return
		case <-time.After(250 * time.Millisecond):
		}
	}
}
