package cli

import (
	"maps"
	"path/filepath"
	"strings"
	"testing"
)

// Refused before any cluster is read: an unknown environment (listing the
// declared ones), one environment promoted into itself, a missing flag,
// and a staging that never finished a run; nothing is written.
func TestPromoteRefusesBadEnvironments(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"release.toml": goodTarget + `[release]
name = "demo"
composition = "manifests/"

[environments.staging]
target = { namespace = "demo-staging" }

[environments.prod]
target = { namespace = "demo-prod" }
`, "manifests/cm.yaml": envConfigMap})
	spec := filepath.Join(dir, "release.toml")
	before := treeOf(t, dir)
	for name, tt := range map[string]struct {
		args []string
		want string
	}{
		"an unknown source":           {[]string{"--from", "qa", "--to", "prod"}, `environment "qa" is not declared; the environments are prod, staging`},
		"an unknown destination":      {[]string{"--from", "staging", "--to", "live"}, `environment "live" is not declared; the environments are prod, staging`},
		"one environment into itself": {[]string{"--from", "prod", "--to", "prod"}, "from and to are both environment prod"},
		"no source":                   {[]string{"--to", "prod"}, "promote needs both environments"},
		"staging never applied":       {[]string{"--from", "staging", "--to", "prod"}, "environment staging has no revision"},
		"json output, still refused":  {[]string{"--from", "staging", "--to", "prod", "-o", "json"}, "it never finished a run, so it ran nothing to promote"},
	} {
		t.Run(name, func(t *testing.T) {
			res := run(t, append([]string{"promote", "--spec", spec}, tt.args...)...)
			if res.code != ExitRefused || !strings.Contains(res.stderr, tt.want) || res.stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant exit 2 saying %q", res.code, res.stdout, res.stderr, tt.want)
			}
		})
	}
	if after := treeOf(t, dir); !maps.Equal(before, after) {
		t.Errorf("refused promotions changed files:\nbefore %v\nafter  %v", keysOfTree(before), keysOfTree(after))
	}
}
