// Command piceli manages Kubernetes infrastructure described as typed Go.
package main

import (
	"context"
	"os"

	"github.com/pynenc/piceli/internal/cli"
	"github.com/pynenc/piceli/internal/gctune"
)

func main() {
	gctune.ForCommand()
	ctx, stop := cli.SignalContext(context.Background())
	code := cli.Run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
