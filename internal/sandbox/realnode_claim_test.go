package sandbox_test

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/pynenc/piceli/internal/sandbox"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// One real node per machine: while one runs, a second sandbox asking for
// one is refused before it starts anything, naming the sandbox that has it.
func TestSecondRealNodeIsRefused(t *testing.T) {
	first := upRealNode(t, openRealNode(t, 0))
	second := openRealNode(t, 0)
	_, err := second.Up(t.Context())
	if !errors.Is(err, sandbox.ErrRealNodeUnavailable) || !strings.Contains(err.Error(), first.Layout().ClusterDir()) {
		t.Fatalf("Up of a second sandbox with a real node = %v; want ErrRealNodeUnavailable naming %s", err, first.Layout().ClusterDir())
	}
	if st := status(t, second); len(st.Components) != 0 {
		t.Errorf("the refused sandbox runs %+v; want nothing started", st.Components)
	}
	if st := status(t, first.Sandbox); !st.Running {
		t.Errorf("the first sandbox is not running after the refusal: %+v", st)
	}
}

// A running sandbox without a real node is not given one: up --real-node
// refuses, saying how to start it with one, and leaves it running as it
// was.
func TestRunningSandboxIsNotGivenARealNode(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: claiming the real node writes under /run")
	}
	sandboxtest.LockRealNode(t)
	dir, err := os.MkdirTemp("", "pcl")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	name := fmt.Sprintf("p%d", time.Now().UnixNano()%1_000_000_000)
	plain := openExtra(t, func(o *sandbox.Options) { o.Dir, o.Name = dir, name })
	up(t, plain)

	withNode, err := sandbox.Open(sandbox.Options{Name: name, Dir: dir, ToolsDir: os.DevNull, RealNode: true, Agent: sandboxtest.AgentCommand()})
	if err != nil {
		t.Fatal(err)
	}
	sandboxtest.RequireRealNode(t, withNode.Binaries())
	_, err = withNode.Up(t.Context())
	if !errors.Is(err, sandbox.ErrRealNodeUnavailable) || !strings.Contains(err.Error(), "already running without one; stop it with `piceli sandbox down`") {
		t.Fatalf("Up with a real node of a running sandbox without one = %v; want ErrRealNodeUnavailable saying to stop it first", err)
	}
	if st := status(t, plain); !st.Running {
		t.Errorf("the sandbox is not running after the refusal: %+v", st)
	}
	if _, ok, err := plain.RealNode(); ok || err != nil {
		t.Errorf("RealNode() after the refusal = %t, %v; want none", ok, err)
	}
}
