package cli

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// TestReleasePlanWarnsOfUnpinnedImages expects a plan to warn about every
// container image of its objects that is not pinned by digest, naming the
// object and container, in its document and its text; and
// require_pinned_images = true to refuse such a plan (exit 2, nothing
// stored).
func TestReleasePlanWarnsOfUnpinnedImages(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	r := newRelease(t, sb, "", map[string]string{"deploy.yaml": deploymentYAML("web", 1, "")})
	want := "Deployment/" + r.ns + `/web: container "web": image "example.invalid/web:1" is not pinned by digest`

	if p := r.plan(t); !slices.Contains(p.Warnings(), want) {
		t.Errorf("plan warnings = %q, want %q among them", p.Warnings(), want)
	}
	text := run(t, "release", "plan", "--spec", r.spec)
	if text.code != ExitOK || !strings.Contains(text.stdout, "warnings (1):\n  "+want+"\n") {
		t.Errorf("plan: exit %d, stdout:\n%s\nwant exit 0 and the warning %q", text.code, text.stdout, want)
	}

	strict := newRelease(t, sb, "require_pinned_images = true\n", map[string]string{"deploy.yaml": deploymentYAML("web", 1, "")})
	res := run(t, "release", "plan", "--spec", strict.spec)
	wantErr := "Deployment/" + strict.ns + `/web (declared by `
	if res.code != ExitRefused || !strings.Contains(res.stderr, wantErr) || !strings.Contains(res.stderr, `container "web": image "example.invalid/web:1" is not pinned by digest`) {
		t.Fatalf("plan with require_pinned_images: exit %d, stderr:\n%s\nwant exit %d naming the object and its container", res.code, res.stderr, ExitRefused)
	}
	if _, err := os.Stat(strict.stateDir); !os.IsNotExist(err) {
		t.Errorf("a refused plan created the state directory (stat: %v)", err)
	}
}
