package sandbox_test

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/pynenc/piceli/internal/sandbox"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// shared is the sandbox with an agent that the agent tests share: the
// shared "piceli" sandbox may have been started without one, and starting a
// sandbox per test would cost seconds each.
var shared struct {
	once    sync.Once
	sb      *sandbox.Sandbox
	dir     string
	cluster *sandboxtest.Sandbox
	missing []string // binaries missing from the cache
	err     error
}

// agentSandbox starts the shared agent sandbox on first use and returns it.
// It is unavailable (a skip, or a failure under CI=true) when the binary
// cache is cold.
func agentSandbox(t *testing.T) *sandboxtest.Sandbox {
	t.Helper()
	shared.once.Do(startAgentSandbox)
	if len(shared.missing) > 0 {
		sandboxtest.Unavailable(t, fmt.Sprintf("binaries %v missing from %s", shared.missing, shared.sb.Binaries().Dir))
	}
	if shared.err != nil {
		t.Fatalf("start the agent tests' sandbox: %v", shared.err)
	}
	return shared.cluster
}

func startAgentSandbox() {
	shared.dir, shared.err = os.MkdirTemp("", "piceli-agent-sandbox-")
	if shared.err != nil {
		return
	}
	shared.sb, shared.err = sandbox.Open(sandbox.Options{
		Name:     fmt.Sprintf("agent%d", time.Now().UnixNano()%1_000_000_000),
		Dir:      shared.dir,
		ToolsDir: os.DevNull,
		Agent:    sandboxtest.AgentCommand(),
	})
	if shared.err != nil {
		return
	}
	if shared.missing = shared.sb.Binaries().Missing(); len(shared.missing) > 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	info, err := shared.sb.Up(ctx)
	if err != nil {
		shared.err = err
		return
	}
	shared.cluster, shared.err = sandboxtest.Connect(info.Kubeconfig, info.Context)
}

// stopAgentSandbox stops the shared agent sandbox if it was started.
func stopAgentSandbox() error {
	if shared.sb == nil {
		return nil
	}
	defer os.RemoveAll(shared.dir)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := shared.sb.Down(ctx)
	return err
}

// layoutOf is the layout of a sandbox a test reaches.
func layoutOf(t *testing.T, sb *sandboxtest.Sandbox) sandbox.Layout {
	t.Helper()
	l, err := sandbox.NewLayout(sb.Dir, sb.Name)
	if err != nil {
		t.Fatal(err)
	}
	return l
}
