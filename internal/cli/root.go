package cli

import (
	"context"
	"flag"
	"fmt"
	"github.com/go-logr/logr"
	"io"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/klog/v2"
)

// Version is the piceli version, set at build time with
// -ldflags "-X github.com/pynenc/piceli/internal/cli.Version=...".
var Version = "dev"

// Run executes the command tree with args and returns the process exit code.
// Errors are printed once, as one line, to stderr. An interrupt that cancels
// ctx while nothing journaled is in flight makes Run return within
// interruptGrace (ExitInterrupted), whether or not the command has ended.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return promptly(ctx, stderr, func() int { return execute(ctx, args, stdout, stderr) })
}

// execute runs the command tree once.
func execute(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	quietClientLogs()
	root := NewRoot()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "piceli: %v\n", err)
	}
	if h := hint(err); h != "" {
		fmt.Fprintln(stderr, h)
	}
	return exitCode(err)
}

// quietClientLogs stops client-go's klog from writing to stderr (for
// example "Couldn't get resource list" when an aggregated API is down, or
// "Unexpected error when reading response body" when a request is
// cancelled): Piceli reports what matters in its own words. Without the
// threshold klog copies every error to stderr whatever its output.
func quietClientLogs() {
	var fs flag.FlagSet
	klog.InitFlags(&fs)
	fs.Set("stderrthreshold", "FATAL")
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)
	// controller-runtime's clients (piceli controller ...) log through
	// their own logger, and print a warning with a stack trace when none
	// was set; the commands say what they do themselves.
	ctrllog.SetLogger(logr.Discard())
}

// verboseLevel is the klog verbosity --verbose turns on: client-go logs
// each request's method, URL, status and latency. It stops below level 8,
// where request and response bodies (Secret values among them) are logged;
// Piceli never goes there.
const verboseLevel = "6"

// verboseClientLogs sends client-go's request log lines to w.
func verboseClientLogs(w io.Writer) {
	var fs flag.FlagSet
	klog.InitFlags(&fs)
	fs.Set("v", verboseLevel)
	klog.LogToStderr(false)
	klog.SetOutput(w)
}

// NewRoot builds a fresh command tree; tests call it once per case.
func NewRoot() *cobra.Command {
	root := &cobra.Command{
		Use:           "piceli",
		Short:         "Manage Kubernetes infrastructure as typed Go",
		Long:          "Piceli renders, plans and applies Kubernetes infrastructure described as typed Go,\nYAML/JSON files or k8s.io/api objects.",
		Version:       Version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return refused(err) })
	var verbose bool
	root.PersistentFlags().BoolVarP(&verbose, "verbose", "v", false, "log every request to the cluster (method, URL, status; never bodies)")
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		if verbose {
			verboseClientLogs(cmd.ErrOrStderr())
		}
		return checkFormat(cmd)
	}
	root.Args = cobra.ArbitraryArgs
	root.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 {
			return refusedf("unknown command %q; run 'piceli --help' for the list", args[0])
		}
		return cmd.Help()
	}
	root.AddCommand(subcommands()...)
	refuseBadArgs(root)
	return root
}

// refuseBadArgs makes the positional arguments a command does not accept
// bad input (exit 2), as a bad flag is, in c and every command under it.
func refuseBadArgs(c *cobra.Command) {
	if check := c.Args; check != nil {
		c.Args = func(cmd *cobra.Command, args []string) error { return refused(check(cmd, args)) }
	}
	for _, sub := range c.Commands() {
		refuseBadArgs(sub)
	}
}

// subcommands lists every top-level command; each lives in its own file.
func subcommands() []*cobra.Command {
	return []*cobra.Command{newInitCmd(), newRenderCmd(), newPublishCmd(), newChartCmd(), newImportCmd(), newCodegenCmd(), newReleaseCmd(), newPromoteCmd(), newStatusCmd(), newAccessCmd(), newObserveCmd(), newArtifactsCmd(), newRegistryCmd(), newDeployCmd(), newStateCmd(), newControllerCmd(), newSandboxCmd()}
}

// checkFormat refuses an -o value the command does not offer, before the
// command reads anything: the formats are those its help names after
// "output format: " (before any parenthesis).
func checkFormat(cmd *cobra.Command) error {
	f := cmd.Flags().Lookup("output")
	if f == nil {
		return nil
	}
	formats, _, _ := strings.Cut(strings.TrimPrefix(f.Usage, "output format: "), " (")
	offered := strings.FieldsFunc(strings.ReplaceAll(formats, " or ", ","), func(r rune) bool { return r == ',' || r == ' ' })
	if !slices.Contains(offered, f.Value.String()) {
		return refusedf("unknown output format %q (want %s)", f.Value.String(), strings.Join(offered, " or "))
	}
	return nil
}
