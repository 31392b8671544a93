package cli

import (
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// localOnly are the runnable commands that never reach a cluster through a
// kubeconfig, each with the reason; every other one may, so it must take
// --allow-exec.
var localOnly = map[string]string{
	"artifacts build":        "builds from pinned files",
	"artifacts inspect":      "reads an OCI layout",
	"artifacts pin":          "hashes local inputs",
	"chart export":           "renders, then writes a chart",
	"deploy history":         "reads the state directory's deploy records",
	"deploy show":            "reads the state directory's deploy records",
	"import yaml":            "reads manifest files",
	"init":                   "writes a new project",
	"observe forward-delete": "edits a preferences file",
	"observe forward-list":   "reads a preferences file",
	"publish":                "renders, then writes an OCI layout or pushes to a registry",
	"registry status":        "reads the registry release's local state",
	"release archive":        "reads the state directory",
	"release gc":             "prunes the state directory",
	"render":                 "runs the composition",
	"sandbox build":          "compiles binaries",
	"sandbox down":           "stops local processes",
	"sandbox load":           "reads a sandbox's own kubeconfig, which runs no plugin",
	"sandbox status":         "reads a sandbox's own kubeconfig, which runs no plugin",
	"sandbox up":             "starts local processes",
	"state key":              "makes this machine's signing key",
}

// oneText are the flags many commands share, with the one help text each
// has wherever it appears.
var oneText = map[string]string{
	"allow-exec": usageAllowExec,
	"artifact":   usageArtifact,
	"kubeconfig": usageKubeconfig,
	"context":    usageContext,
	"spec":       usageSpec,
	"env":        usageEnv,
	"tools-dir":  usageToolsDir,
}

// meaning is the head every help text of a shared flag begins with, for
// the flags whose help differs between commands (what the namespace or
// directory is of, which default applies). A flag two commands share with
// different help texts must be here: a second meaning for a flag name is
// a second flag name.
var meaning = map[string]string{
	"address":            usageAddress,
	"app":                usageApp,
	"approve":            usageApprove,
	"containerd-address": usageContainerd,
	"deliver":            usageDeliver,
	"dir":                usageDir,
	"grant":              usageGrant,
	"image":              usageImage,
	"namespace":          usageNamespace,
	"only":               usageOnly,
	"out":                usageOutDir,
	"output":             "output format: ",
	"port":               usagePort,
	"registry":           usageRegistry,
	"target":             usageTarget,
	"to":                 usageTo,
	"user":               usageUser,
}

// runnable lists the tree's runnable commands by path without "piceli ".
func runnable(root *cobra.Command) map[string]*cobra.Command {
	out := map[string]*cobra.Command{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Runnable() && !c.Hidden && c != root {
			out[strings.TrimPrefix(c.CommandPath(), "piceli ")] = c
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
	return out
}

// Acceptance 2 of issue 29, the part a walk of the command tree shows:
// every command that may reach a cluster takes --allow-exec, and the flags
// commands share say one thing everywhere.
func TestCommandTreeContract(t *testing.T) {
	cmds := runnable(NewRoot())
	t.Run("every command that may reach a cluster takes --allow-exec", func(t *testing.T) {
		for path, c := range cmds {
			_, local := localOnly[path]
			if has := c.Flags().Lookup("allow-exec") != nil; !has && !local {
				t.Errorf("%s may reach a cluster and has no --allow-exec", path)
			}
		}
		for path := range localOnly {
			if cmds[path] == nil {
				t.Errorf("localOnly names %q, which is no command", path)
			}
		}
	})
	t.Run("a shared flag has one help text", func(t *testing.T) {
		for path, c := range cmds {
			c.Flags().VisitAll(func(f *pflag.Flag) {
				if want, ok := oneText[f.Name]; ok && f.Usage != want {
					t.Errorf("%s --%s: help %q, want %q", path, f.Name, f.Usage, want)
				}
			})
		}
	})
	t.Run("a flag name has one meaning in every command", func(t *testing.T) {
		texts := map[string]map[string][]string{} // flag name → help text → commands
		for path, c := range cmds {
			c.Flags().VisitAll(func(f *pflag.Flag) {
				if texts[f.Name] == nil {
					texts[f.Name] = map[string][]string{}
				}
				texts[f.Name][f.Usage] = append(texts[f.Name][f.Usage], path)
			})
		}
		for name, byText := range texts {
			head, declared := meaning[name]
			if len(byText) > 1 && !declared {
				t.Errorf("--%s has %d help texts (%v) and no one meaning declared: give it one text, or a head in meaning, or another name", name, len(byText), byText)
			}
			for text, paths := range byText {
				if declared && !strings.HasPrefix(text, head) {
					t.Errorf("%v --%s: help %q does not begin with its meaning %q", paths, name, text, head)
				}
			}
		}
		for name := range meaning {
			if texts[name] == nil {
				t.Errorf("meaning names --%s, which no command takes", name)
			}
		}
	})
	t.Run("-o always names the output format and offers json", func(t *testing.T) {
		for path, c := range cmds {
			f := c.Flags().Lookup("output")
			if f == nil {
				continue
			}
			if f.Shorthand != "o" || !strings.HasPrefix(f.Usage, "output format: ") || !slices.Contains(strings.Fields(strings.ReplaceAll(f.Usage, ",", " ")), "json") {
				t.Errorf("%s --output (-%s): help %q, want -o and an output format that offers json", path, f.Shorthand, f.Usage)
			}
		}
	})
	t.Run("a kubeconfig flag comes with a context flag", func(t *testing.T) {
		for path, c := range cmds {
			if (c.Flags().Lookup("kubeconfig") == nil) != (c.Flags().Lookup("context") == nil) {
				t.Errorf("%s has one of --kubeconfig and --context without the other", path)
			}
		}
	})
}
