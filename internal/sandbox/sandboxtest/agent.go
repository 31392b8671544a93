package sandboxtest

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/pynenc/piceli/internal/sandbox"
)

// agentArg is the first argument AgentCommand starts the test binary with.
const agentArg = "piceli-sandbox-agent"

// AgentCommand is a sandbox.Options.Agent that runs the sandbox agent from
// the running test binary, for tests that start a sandbox of their own with
// sandbox.Up. The test package's TestMain must call AgentMain first.
func AgentCommand() []string {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	return []string{exe, agentArg}
}

// AgentMain runs the sandbox agent until SIGTERM or SIGINT, and exits, when
// the test binary was started by AgentCommand; otherwise it returns at
// once. Call it first in TestMain:
//
//	func TestMain(m *testing.M) {
//		sandboxtest.AgentMain()
//		os.Exit(m.Run())
//	}
func AgentMain() {
	if len(os.Args) < 2 || os.Args[1] != agentArg {
		return
	}
	var opts sandbox.AgentOptions
	fs := flag.NewFlagSet(agentArg, flag.ExitOnError)
	opts.RegisterFlags(fs)
	fs.Parse(os.Args[2:])
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := sandbox.RunAgent(ctx, opts)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}
