package cli

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

func TestVersion(t *testing.T) {
	res := run(t, "--version")
	if res.code != 0 || !strings.Contains(res.stdout, "piceli version "+Version) {
		t.Errorf("piceli --version = exit %d, %q; want the version", res.code, res.stdout)
	}
}

func TestUnknownInputIsRefused(t *testing.T) {
	for _, args := range [][]string{{"frobnicate"}, {"render", "--no-such-flag"}, {"render", "-o", "xml"}} {
		res := run(t, args...)
		if res.code != ExitRefused {
			t.Errorf("piceli %v: exit %d, want %d; stderr %q", args, res.code, ExitRefused, res.stderr)
		}
		if !strings.HasPrefix(res.stderr, "piceli: ") || strings.Count(res.stderr, "\n") != 1 {
			t.Errorf("piceli %v: stderr %q, want one line starting with \"piceli: \"", args, res.stderr)
		}
	}
}

// TestHelpListsSteps checks that every command that does something lists
// its steps in its help.
func TestHelpListsSteps(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if sub.Runnable() && !sub.Hidden && sub.Name() != "help" && sub.Name() != "completion" {
				res := run(t, append(strings.Fields(strings.TrimPrefix(sub.CommandPath(), "piceli ")), "--help")...)
				if res.code != 0 || !strings.Contains(res.stdout, "Steps:\n  1. ") {
					t.Errorf("%s --help does not list its steps:\n%s", sub.CommandPath(), res.stdout)
				}
			}
			walk(sub)
		}
	}
	walk(NewRoot())
}
