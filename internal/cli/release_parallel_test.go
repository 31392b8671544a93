package cli

import (
	"strings"
	"testing"
)

// A negative --parallel is refused before the spec is read, by every
// command that plans or applies.
func TestReleaseRefusesANegativeParallel(t *testing.T) {
	for _, cmd := range []string{"plan", "diff", "apply", "resume", "rollback"} {
		t.Run(cmd, func(t *testing.T) {
			r := run(t, "release", cmd, "--spec", "no-such-release.toml", "--parallel", "-1")
			if r.code != ExitRefused || !strings.Contains(r.stderr, "--parallel -1") {
				t.Fatalf("release %s --parallel -1: exit %d, stderr %q; want exit %d naming the flag", cmd, r.code, r.stderr, ExitRefused)
			}
		})
	}
}
