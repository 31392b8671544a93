package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// WriteReference writes the CLI reference, generated from the command
// tree, as Markdown: every command with its usage, description and flags.
// docs/cli.md is this output; a test keeps it current.
func WriteReference(w io.Writer) {
	fmt.Fprintln(w, "# piceli command reference")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Generated from the command tree by `go test ./internal/cli -run TestReference -update`; do not edit by hand.")
	writeCommand(w, NewRoot())
}

func writeCommand(w io.Writer, c *cobra.Command) {
	if c.Hidden || c.Name() == "help" || c.Name() == "completion" {
		return
	}
	fmt.Fprintf(w, "\n## %s\n\n%s\n\n```\n%s\n```\n", c.CommandPath(), c.Short, c.UseLine())
	if c.Long != "" {
		fmt.Fprintf(w, "\n```text\n%s\n```\n", strings.TrimSpace(c.Long))
	}
	if flags := c.NonInheritedFlags().FlagUsages(); flags != "" {
		fmt.Fprintf(w, "\nFlags:\n\n```text\n%s```\n", flags)
	}
	for _, sub := range c.Commands() {
		writeCommand(w, sub)
	}
}
