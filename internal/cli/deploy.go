package cli

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/pynenc/piceli/artifact"
	"github.com/pynenc/piceli/deploy"
	"github.com/pynenc/piceli/plan"
	"github.com/pynenc/piceli/progress"
	"github.com/pynenc/piceli/refusal"
)

// deployFlags are the flags of deploy.
type deployFlags struct {
	specFlag
	opts   deploy.Options
	until  string
	grants []string
	output string
}

func newDeployCmd() *cobra.Command {
	var f deployFlags
	cmd := &cobra.Command{
		Use:   "deploy --spec release.toml [--approve HASH] [--resume] [--until STAGE] [--grant TOOL=PATH ...]",
		Short: "Build, deliver, plan, apply and check a release as one resumable run",
		Long: `Take the release from source to a running, checked release, stage by stage,
each journaled in state_dir/deploys/ID with the digest of its inputs.

Steps:
  1. inputs   check every input of build.toml against build.lock (drift: exit 2)
  2. build    build the OCI layout; skipped when it was built from this lock
  3. deliver  stream the images into containerd (--grant ctr=PATH) or push them
              to a registry, as [deploy] deliver (or --deliver) says; skipped
              when the same images already went to the same target
  4. plan     plan and store; without --approve stop here with exit 3 and print
              the command that continues (it neither builds nor delivers again)
  5. apply    apply exactly the approved plan (a stale one is refused, exit 2)
  6. checks   the spec's [[checks]], after the last wave

--resume continues the latest deploy that did not finish; its apply stage
resumes the engine's run, so no step is written twice. --until STAGE stops
after that stage. With [telemetry] otlp_endpoint (or --otlp-endpoint) one
trace per deploy goes to that OTLP/HTTP receiver, bounded by its
export_timeout (3s by default, 10s at most); telemetry never fails a deploy.
With -o json, progress is JSON lines, then the result.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := f.finish(cmd); err != nil {
				return refused(err)
			}
			d := newProgress(cmd, f.output)
			f.opts.Events, f.opts.Log, f.opts.Env = d.events, d.log, f.env
			res, err := deploy.Run(cmd.Context(), f.spec, f.opts)
			d.done()
			return reportDeploy(cmd, f, res, err)
		},
	}
	fl := cmd.Flags()
	f.specFlag.register(cmd)
	fl.StringVar(&f.opts.Approve, "approve", "", usageApprove)
	fl.BoolVar(&f.opts.Resume, "resume", false, "continue the latest deploy that did not finish")
	fl.StringVar(&f.until, "until", "", "stop after this stage: inputs, build, deliver, plan, apply or checks")
	fl.StringArrayVar(&f.grants, "grant", nil, usageGrant+" to deliver images (ctr)")
	fl.StringVar(&f.opts.Deliver, "deliver", "", usageDeliver+": none, containerd or registry, in place of [deploy] deliver")
	fl.StringVar(&f.opts.ContainerdAddress, "containerd-address", "", usageContainerd+artifact.DefaultContainerdAddress+"; --deliver containerd)")
	fl.StringVar(&f.opts.Registry, "registry", "", usageRegistry+" to push to (--deliver registry)")
	fl.StringVar(&f.opts.OTLPEndpoint, "otlp-endpoint", "", "OTLP/HTTP receiver's base URL, replacing [telemetry] otlp_endpoint")
	fl.BoolVar(&f.opts.AllowExec, "allow-exec", false, usageAllowExec)
	fl.StringVarP(&f.output, "output", "o", "text", usageOutput)
	cmd.AddCommand(newDeployHistoryCmd(), newDeployShowCmd())
	return cmd
}

// finish parses --until and the grants.
func (f *deployFlags) finish(cmd *cobra.Command) error {
	if f.output != "text" && f.output != "json" {
		return refusedf("-o %q: want text or json", f.output)
	}
	if f.until != "" {
		st, err := deploy.ParseStage(f.until)
		if err != nil {
			return refusedf("--until: %w", err)
		}
		f.opts.Until = st
	}
	for _, g := range f.grants {
		grant, err := artifact.ParseGrant(g)
		if err != nil {
			return refused(err)
		}
		f.opts.Grants = append(f.opts.Grants, grant)
	}
	f.opts.Interrupt = softStop(cmd.Context(), cmd.ErrOrStderr())
	return nil
}

// reportDeploy prints how the deploy ended and maps it to an exit code.
func reportDeploy(cmd *cobra.Command, f deployFlags, res *deploy.Result, err error) error {
	if res != nil {
		if f.output == "json" {
			if jerr := writeJSON(cmd, res.Doc()); jerr != nil {
				return jerr
			}
		} else {
			cmd.PrintErrf("deploy %s %s; telemetry: %s\n", res.ID, res.Status, res.Telemetry)
		}
	}
	var approval *deploy.ApprovalRequiredError
	switch {
	case err == nil && res != nil && res.Status == deploy.StatusStopped:
		if res.Plan != "" {
			cmd.Printf("plan %s stored; continue with: %s\n", res.Plan, continueCommand(f.specFlag, res.Plan))
		}
		return nil
	case err == nil:
		return nil
	case errors.As(err, &approval):
		next := continueCommand(f.specFlag, approval.Plan.Hash)
		if f.output != "json" {
			approval.Plan.Write(cmd.OutOrStdout(), plan.WriteOptions{Color: colorful(cmd)})
			cmd.Printf("\nplan %s stored\ncontinue with: %s\n", approval.Plan.Hash, next)
		}
		return &ExitError{Code: ExitApproval, Err: fmt.Errorf("approval required: nothing was applied; run: %s", next)}
	case refusal.Is(err):
		return err // refused before any change: nothing to continue
	}
	return &ExitError{Code: ExitFailed, Err: fmt.Errorf("%w\ncontinue it with: %s", err, resumeCommand(f.specFlag))}
}

func continueCommand(spec specFlag, hash string) string {
	return "piceli deploy" + specArg(spec) + " --approve " + plan.ShortHash(hash)
}

func resumeCommand(spec specFlag) string { return "piceli deploy" + specArg(spec) + " --resume" }

// specArg is " --spec SPEC" for a hint, and " --env NAME" when the
// command was given one: always there, even for the default spec, since a
// hint is copied into other directories and scripts; quoted when the
// shell would split it.
func specArg(f specFlag) string {
	arg := " --spec " + shellWord(f.spec)
	if f.env != "" {
		arg += " --env " + shellWord(f.env)
	}
	return arg
}

// shellWord quotes s when the shell would split or expand it.
func shellWord(s string) string {
	if strings.ContainsAny(s, " \t'\"$\\`;&|<>()*?[]#~!{}") {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	return s
}

// stageLine is how people's renderers print a deploy's stage event.
func stageLine(e progress.Event) string {
	took := (time.Duration(e.DurationMS) * time.Millisecond).Round(time.Millisecond)
	switch {
	case e.Kind == deploy.StageStarted:
		return "stage " + e.Stage
	case e.Error != "":
		return fmt.Sprintf("stage %s: failed after %s: %s", e.Stage, took, e.Error)
	case e.Message != "":
		return fmt.Sprintf("stage %s: %s (%s)", e.Stage, e.Result, e.Message)
	}
	return fmt.Sprintf("stage %s: %s in %s", e.Stage, e.Result, took)
}

func newDeployHistoryCmd() *cobra.Command {
	var f specFlag
	var output string
	cmd := &cobra.Command{
		Use:   "history --spec release.toml [-o json]",
		Short: "List the release's deploys: what each built, delivered and applied",
		Long: `List the release's deploys, oldest first. Nothing but the state directory is read.

Steps:
  1. read every journal under state_dir/deploys (a torn last record is left out)
  2. print each deploy's ID, status, start and what each stage did
     (-o json: every stage's inputs digest, outcome, outputs and times)`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			all, err := deploy.History(f.spec, f.env)
			if err != nil {
				return err
			}
			if output == "json" {
				return writeJSON(cmd, deploy.NewHistoryDoc(all))
			}
			for _, st := range all {
				cmd.Printf("%s  %-17s %s  %s\n", st.ID, st.Status, st.Started.Local().Format(time.DateTime), stagesText(st))
			}
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().StringVarP(&output, "output", "o", "text", usageOutput)
	return cmd
}

func newDeployShowCmd() *cobra.Command {
	var f specFlag
	var output string
	cmd := &cobra.Command{
		Use:   "show ID --spec release.toml [-o json]",
		Short: "Show one deploy: each stage's inputs, outcome, outputs and duration",
		Long: `Show one deploy of the release, by its ID or a unique prefix of at least 4 characters.

Steps:
  1. read the deploy's journal under state_dir/deploys/ID
  2. print each stage: outcome, duration, why it was skipped, and what it made:
     images by digest, the delivery and its receipt, the plan, the run and
     revision, the checks`,
		Args: func(cmd *cobra.Command, args []string) error { return refused(cobra.ExactArgs(1)(cmd, args)) },
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := deploy.Show(f.spec, f.env, args[0])
			if err != nil {
				return err
			}
			if output == "json" {
				return writeJSON(cmd, deploy.NewStateDoc(st))
			}
			writeDeploy(cmd, st)
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().StringVarP(&output, "output", "o", "text", usageOutput)
	return cmd
}

// stagesText is "inputs done, build skipped, ..." for a history line.
func stagesText(st *deploy.State) string {
	parts := make([]string, len(st.Stages))
	for i, s := range st.Stages {
		parts[i] = string(s.Stage) + " " + s.Status
	}
	return strings.Join(parts, ", ")
}

func writeDeploy(cmd *cobra.Command, st *deploy.State) {
	cmd.Printf("deploy %s of release %s: %s\n", st.ID, st.Release, st.Status)
	if st.Error != "" {
		cmd.Printf("  error: %s\n", st.Error)
	}
	for _, s := range st.Stages {
		cmd.Printf("  %-8s %-8s %8s", s.Stage, s.Status, s.Duration().Round(time.Millisecond))
		if s.Reason != "" {
			cmd.Printf("  (%s)", s.Reason)
		}
		cmd.Println()
		writeOutputs(cmd, s.Outputs)
	}
	if st.Telemetry != "" {
		cmd.Printf("  telemetry: %s\n", st.Telemetry)
	}
}

func writeOutputs(cmd *cobra.Command, o *deploy.Outputs) {
	if o == nil {
		return
	}
	for _, im := range o.Images {
		cmd.Printf("      image %s %s\n", im.Name, im.Reference)
	}
	if d := o.Delivery; d != nil {
		cmd.Printf("      delivered %d image(s) to %s %s, %d bytes; receipt %s\n", d.Images, d.Target, d.Address, d.BytesSent, d.Receipt)
	}
	if o.Plan != "" {
		cmd.Printf("      plan %s %s\n", plan.ShortHash(o.Plan), o.Summary)
	}
	if o.Run != "" {
		cmd.Printf("      run %s, revision %d\n", o.Run, o.Revision)
	}
	for _, c := range o.Checks {
		cmd.Printf("      check %s passed=%t in %dms\n", c.Name, c.Passed, c.DurationMS)
	}
}
