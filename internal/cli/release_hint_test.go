package cli

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/pynenc/piceli/plan"
	"github.com/pynenc/piceli/release"
)

// Every hint after a run that did not finish names the spec it ran, the
// default one included: issue 27 met "resume it with: piceli release
// resume" after applying examples/shop/release.toml from the checkout.
func TestRunHintsCarryTheSpec(t *testing.T) {
	failed := func(status release.Phase, rb *release.AutoRollback) error {
		return &release.RunFailedError{Result: &release.Result{Run: "r-1", Phase: status}, Err: errors.New("2 checks failed"), Rollback: rb}
	}
	tests := map[string]struct {
		err         error
		interrupted bool
		want        string
	}{
		"a failed run":                  {err: failed(release.PhaseFailed, nil), want: "resume it with: piceli release resume --spec examples/shop/release.toml"},
		"a stopped run":                 {err: failed(release.PhaseStopped, nil), want: "continue it with: piceli release resume --spec examples/shop/release.toml"},
		"an interrupted run":            {err: failed(release.PhaseFailed, nil), interrupted: true, want: "resume it with: piceli release resume --spec examples/shop/release.toml"},
		"a rollback that did not start": {err: failed(release.PhaseFailed, &release.AutoRollback{To: 2, Err: errors.New("refused")}), want: "resume it with: piceli release resume --spec examples/shop/release.toml"},
		"a rollback that finished": {err: failed(release.PhaseFailed, &release.AutoRollback{To: 2, Result: &release.Result{Run: "r-2", Revision: 3}}),
			want: "run them with: piceli release check --spec examples/shop/release.toml"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			if tt.interrupted {
				cancel()
			}
			cmd := &cobra.Command{}
			cmd.SetContext(ctx)
			err := reportRun(cmd, specFlag{spec: "examples/shop/release.toml"}, "text", tt.err)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("reportRun() = %v, want it to say %q", err, tt.want)
			}
		})
	}
}

func TestApproveAndDeployHintsCarryTheDefaultSpecToo(t *testing.T) {
	p := &plan.Plan{Hash: "sha256:3f2a9c1b7d4e0000000000000000000000000000000000000000000000000000"}
	for got, want := range map[string]string{
		approveCommand(specFlag{spec: "release.toml"}, p, 0):                 "piceli release apply --spec release.toml --approve 3f2a9c1b7d4e",
		approveCommand(specFlag{spec: "release.toml"}, p, 2):                 "piceli release rollback --spec release.toml --to 2 --approve 3f2a9c1b7d4e",
		continueCommand(specFlag{spec: "release.toml"}, p.Hash):              "piceli deploy --spec release.toml --approve 3f2a9c1b7d4e",
		resumeCommand(specFlag{spec: "my apps/release.toml"}):                "piceli deploy --spec 'my apps/release.toml' --resume",
		approveCommand(specFlag{spec: "examples/shop/release.toml"}, p, 0):   "piceli release apply --spec examples/shop/release.toml --approve 3f2a9c1b7d4e",
		approveCommand(specFlag{spec: "release.toml", env: "prod"}, p, 0):    "piceli release apply --spec release.toml --env prod --approve 3f2a9c1b7d4e",
		continueCommand(specFlag{spec: "release.toml", env: "prod"}, p.Hash): "piceli deploy --spec release.toml --env prod --approve 3f2a9c1b7d4e",
	} {
		if got != want {
			t.Errorf("hint = %q, want %q", got, want)
		}
	}
}

func TestReleaseCommandQuotesASpecTheShellWouldSplit(t *testing.T) {
	tests := map[string]struct{ spec, want string }{
		"the default spec is named too": {"release.toml", "piceli release resume --spec release.toml"},
		"a plain path stays as it is":   {"examples/shop/release.toml", "piceli release resume --spec examples/shop/release.toml"},
		"a path with a space is quoted": {"my apps/release.toml", "piceli release resume --spec 'my apps/release.toml'"},
		"a quote inside is escaped":     {"it's/release.toml", `piceli release resume --spec 'it'\''s/release.toml'`},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			if got := releaseCommand("resume", specFlag{spec: tt.spec}); got != tt.want {
				t.Errorf("releaseCommand(resume, %q) = %q, want %q", tt.spec, got, tt.want)
			}
		})
	}
}
