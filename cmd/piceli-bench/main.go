// Command piceli-bench measures Piceli against kubectl on a private
// sandbox and writes docs/performance.md: run it with make bench.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/pynenc/piceli/internal/bench"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := bench.Main(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
