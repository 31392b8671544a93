package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// "release plan -o markdown" on the sandbox prints a review comment: the
// changed ConfigMap field old → new, and a command that approves the
// stored plan, which then applies; "release diff -o markdown" says it
// stored nothing and names the plan command with --spec.
func TestReleasePlanMarkdownIsAReviewComment(t *testing.T) {
	t.Parallel()
	sb := sandboxtest.Cluster(t)
	r := newRelease(t, sb, "", map[string]string{"cm.yaml": configMap})
	r.apply(t, r.plan(t))
	r.setManifest(t, "cm.yaml", strings.Replace(configMap, "mode: fast", "mode: slow", 1))

	diff := run(t, "release", "diff", "--spec", r.spec, "-o", "markdown")
	if diff.code != ExitOK || !strings.Contains(diff.stdout, "| update | `ConfigMap/"+r.ns+"/settings` | `data.mode`: `\"fast\"` → `\"slow\"` |") ||
		!strings.Contains(diff.stdout, "this diff stored no plan") || !strings.Contains(diff.stdout, "```sh\npiceli release plan --spec "+r.spec+"\n```") {
		t.Errorf("release diff -o markdown: exit %d, stdout:\n%s%s", diff.code, diff.stdout, diff.stderr)
	}
	md := run(t, "release", "plan", "--spec", r.spec, "-o", "markdown")
	approve := regexp.MustCompile("(?m)^```sh\npiceli release apply --spec (\\S+) --approve ([0-9a-f]{12})\n```\n\\z").FindStringSubmatch(md.stdout)
	if md.code != ExitOK || approve == nil || approve[1] != r.spec || !strings.Contains(md.stdout, "`data.mode`: `\"fast\"` → `\"slow\"`") {
		t.Fatalf("release plan -o markdown: exit %d, want a review comment ending with the approve command; stdout:\n%s%s", md.code, md.stdout, md.stderr)
	}
	if res := run(t, "release", "apply", "--spec", approve[1], "--approve", approve[2]); res.code != ExitOK {
		t.Errorf("the comment's approve command: exit %d\n%s", res.code, res.stderr)
	}
}

// -o takes text, json or markdown on plan and diff, and markdown nowhere
// else: anything else exits 2 naming the format, before the spec is read
// and with nothing written.
func TestOutputMarkdownOnlyOnPlanAndDiff(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "release.toml")
	writeFiles(t, dir, map[string]string{"release.toml": "[target]\nkubeconfig = \"/nonexistent\"\nnamespace = \"x\"\n\n[release]\nname = \"demo\"\ncomposition = \"manifests\"\n"})
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"plan refuses a format it does not know", []string{"release", "plan", "-o", "html"}, `unknown output format "html" (want text or json or markdown)`},
		{"diff refuses a format it does not know", []string{"release", "diff", "-o", "yaml"}, `unknown output format "yaml" (want text or json or markdown)`},
		{"apply offers no markdown", []string{"release", "apply", "-o", "markdown"}, `unknown output format "markdown" (want text or json)`},
		{"rollback offers no markdown", []string{"release", "rollback", "-o", "markdown"}, `unknown output format "markdown" (want text or json)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, append(tc.args, "--spec", spec)...)
			if res.code != ExitRefused || !strings.Contains(res.stderr, tc.want) {
				t.Errorf("piceli %s: exit %d, stderr %q; want exit %d and %q", strings.Join(tc.args, " "), res.code, res.stderr, ExitRefused, tc.want)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 1 {
				t.Errorf("piceli %s wrote into the release directory: %d entries", strings.Join(tc.args, " "), len(entries))
			}
		})
	}
}
