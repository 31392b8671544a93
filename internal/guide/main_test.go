package guide_test

import (
	"os"
	"testing"

	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

func TestMain(m *testing.M) {
	sandboxtest.AgentMain() // the agent of the controller guide's real-node sandbox
	os.Exit(m.Run())
}
