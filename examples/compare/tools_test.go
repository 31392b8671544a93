package compare_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

// tools returns helm and kustomize at the versions tools/compare pins,
// building them into the cache when they are missing (minutes, once).
func tools(t *testing.T) (helm, kustomize string) {
	t.Helper()
	modDir, err := filepath.Abs("../../tools/compare")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(cacheRoot(t), "compare", versionKey(t, modDir), "bin")
	helm, kustomize = filepath.Join(bin, "helm"), filepath.Join(bin, "kustomize")
	if isFile(helm) && isFile(kustomize) {
		return helm, kustomize
	}
	t.Logf("building helm and kustomize from %s into %s (minutes, once)", modDir, bin)
	cmd := exec.Command("go", "build", "-o", bin+string(filepath.Separator), "helm.sh/helm/v4/cmd/helm", "sigs.k8s.io/kustomize/kustomize/v5")
	cmd.Dir = modDir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build helm and kustomize: %v\n%s", err, out)
	}
	return helm, kustomize
}

// versionKey names the pinned versions, so a new pin builds anew.
func versionKey(t *testing.T, modDir string) string {
	t.Helper()
	mod, err := os.ReadFile(filepath.Join(modDir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	version := func(path string) string {
		m := regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(path) + ` (v\S+)`).FindSubmatch(mod)
		if m == nil {
			t.Fatalf("tools/compare/go.mod does not pin %s", path)
		}
		return string(m[1])
	}
	return "helm-" + version("helm.sh/helm/v4") + "-kustomize-" + version("sigs.k8s.io/kustomize/kustomize/v5")
}

func cacheRoot(t *testing.T) string {
	if root := os.Getenv("PICELI_CACHE_DIR"); root != "" {
		return root
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "piceli")
}

func isFile(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.Mode().IsRegular()
}
