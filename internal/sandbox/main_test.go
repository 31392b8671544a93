package sandbox_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// TestMain runs the sandbox agent when a sandbox started by these tests
// asks this binary for one (see sandboxtest.AgentCommand), and otherwise
// the tests, stopping the agent sandbox they share at the end.
func TestMain(m *testing.M) {
	sandboxtest.AgentMain()
	code := m.Run()
	if err := stopAgentSandbox(); err != nil {
		fmt.Fprintf(os.Stderr, "stop the agent tests' sandbox: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}
