package cli

import (
	"strings"
	"testing"

	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// A Secret whose file source changes from one unique canary to another,
// planned and diffed as review comments on the sandbox: both comments
// name the Secret and its changed key, and hold neither canary in any
// form the sweep knows (raw, base64, hex, URL- or JSON-escaped).
func TestSecretCanaryNeverReachesMarkdown(t *testing.T) {
	t.Parallel()
	sb := sandboxtest.Cluster(t)
	r := newSecretRelease(t, sb, "", []secretKey{{key: "file", source: `app.FromFile("file", "secret/pw.txt")`}}, goComposition{})
	canaries := map[string]string{"first": canary(t, "md1"), "second": canary(t, "md2")}
	r.writeSecretFile(t, "secret/pw.txt", canaries["first"])
	r.apply(t, r.plan(t))
	r.writeSecretFile(t, "secret/pw.txt", canaries["second"])

	for _, verb := range []string{"plan", "diff"} {
		res := run(t, "release", verb, "--spec", r.spec, "-o", "markdown")
		if res.code != ExitOK {
			t.Fatalf("release %s -o markdown: exit %d\n%s", verb, res.code, res.stderr)
		}
		key := "| update | `Secret/" + r.ns + "/" + secretName + "` | `data.file` changed (value hidden) |"
		if !strings.Contains(res.stdout, key) {
			t.Errorf("release %s -o markdown does not show the Secret's changed key %q:\n%s", verb, key, res.stdout)
		}
		if l := leaks([]byte(res.stdout+res.stderr), canaries); len(l) > 0 {
			t.Errorf("release %s -o markdown holds secret values: %s", verb, strings.Join(l, "; "))
		}
	}
}
