// Command piceli manages Kubernetes infrastructure described as typed Go.
package main

import (
	"context"
	"os"

	"github.com/pynenc/piceli/internal/cli"
)

func main() {
	ctx, stop := cli.SignalContext(context.Background())
	code := cli.Run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
