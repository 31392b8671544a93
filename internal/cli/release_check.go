package cli

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/pynenc/piceli/release"
)

func newCheckCmd() *cobra.Command {
	var f targetFlags
	var output string
	cmd := &cobra.Command{
		Use:   "check --spec release.toml [-o json]",
		Short: "Run the release's checks now, changing nothing",
		Long: `Run the spec's [[checks]] against the release as the cluster has it.

Steps:
  1. render the composition (for its Services, Jobs and secrets) and connect
  2. run each check in declaration order: http and tcp through a loopback
     port-forward to a ready pod of the Service, command locally with
     PICELI_<SERVICE>_<PORT>_ADDR set, job as a Job run to completion and
     deleted; each with its timeout and retries
  3. print each result with a bounded excerpt (no secret value, no request
     header), or one JSON document with -o json; exit 1 when one failed

Nothing of the release changes: no plan, run or revision is written, and
no lock is taken.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			r, err := f.open(cmd, release.Options{})
			if err != nil {
				return err
			}
			results, err := r.Check(cmd.Context(), release.CheckOptions{})
			if err != nil && !errors.As(err, new(*release.ChecksFailedError)) {
				return err
			}
			if perr := printChecks(cmd, output, r.Name(), results); perr != nil {
				return perr
			}
			return failedIf(err)
		},
	}
	f.register(cmd)
	cmd.Flags().StringVarP(&output, "output", "o", "text", usageOutput)
	return cmd
}

// checkOutput refuses an output format other than text and json.
func checkOutput(output string) error {
	if output != "text" && output != "json" {
		return refusedf("unknown output format %q (want text or json)", output)
	}
	return nil
}

// failedIf turns err into exit code 1 with its message.
func failedIf(err error) error {
	if err == nil {
		return nil
	}
	return &ExitError{Code: ExitFailed, Err: err}
}

// printChecks prints check results, as text or one JSON document.
func printChecks(cmd *cobra.Command, output, name string, results []release.CheckResult) error {
	if output == "json" {
		return writeJSON(cmd, release.NewChecksDoc(name, results))
	}
	if len(results) == 0 {
		cmd.Println("the spec declares no checks")
	}
	for _, c := range results {
		cmd.Println(checkText(c))
	}
	return nil
}

// checkText is a check's result for people: a line, then for a failed
// one its excerpt, indented.
func checkText(c release.CheckResult) string {
	took := (time.Duration(c.DurationMS) * time.Millisecond).Round(time.Millisecond)
	if c.Passed {
		return fmt.Sprintf("passed  %s (%s) in %s", c.Name, c.Kind, took)
	}
	s := fmt.Sprintf("FAILED  %s (%s) after %d attempt(s) in %s: %s", c.Name, c.Kind, c.Attempts, took, c.Error)
	if ex := strings.TrimRight(c.Excerpt, "\n"); ex != "" {
		s += "\n        " + strings.ReplaceAll(ex, "\n", "\n        ")
	}
	return s
}
