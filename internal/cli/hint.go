package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/pynenc/piceli/artifact"
	"github.com/pynenc/piceli/internal/importer"
	"github.com/pynenc/piceli/release"
	"github.com/pynenc/piceli/specerr"
)

// hint is the flag that answers err, for the line after the error: library
// errors say what they validate and never name a flag, so the CLI adds it.
// It is empty when no flag answers err.
func hint(err error) string {
	var (
		grant *artifact.GrantError
		taken *release.PortTakenError
		env   *specerr.EnvironmentError
	)
	switch {
	case errors.As(err, &env) && len(env.Declared) == 0:
		return "the spec declares no environments: drop --env"
	case errors.As(err, &env):
		return "to choose the environment, pass --env NAME, one of " + strings.Join(env.Declared, ", ")
	case errors.Is(err, release.ErrExecNotAllowed):
		return "to let the kubeconfig's credential plugin run, pass --allow-exec"
	case errors.As(err, &grant):
		return fmt.Sprintf("to let it run %s, pass --grant %s=PATH", grant.Tool, grant.Tool)
	case errors.Is(err, importer.ErrOutputExists):
		return "to replace the files an import writes there, pass --force"
	case errors.As(err, &taken):
		return fmt.Sprintf("to choose the local port, pass --port %s=LOCAL", taken.Component)
	}
	return ""
}
