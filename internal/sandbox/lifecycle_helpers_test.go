package sandbox_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/pynenc/piceli/internal/sandbox"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// testProgress sends sandbox progress lines to the test log.
type testProgress struct{ t testing.TB }

func (p testProgress) Step(line string) { p.t.Log(line) }

// openExtra opens a sandbox with a unique name in a temporary directory,
// beside the running one, using the cached binaries, with an agent run by
// this test binary; edits change its options. It is stopped when the test
// ends.
func openExtra(t *testing.T, edits ...func(*sandbox.Options)) *sandbox.Sandbox {
	t.Helper()
	opts := sandbox.Options{
		Name:     fmt.Sprintf("t%d", time.Now().UnixNano()%1_000_000_000),
		Dir:      t.TempDir(),
		ToolsDir: os.DevNull, // never build from a test: the cache must be warm
		Progress: testProgress{t},
		Agent:    sandboxtest.AgentCommand(),
	}
	for _, edit := range edits {
		edit(&opts)
	}
	sb, err := sandbox.Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	if missing := sb.Binaries().Missing(); len(missing) > 0 {
		sandboxtest.Unavailable(t, fmt.Sprintf("binaries %v missing from %s", missing, sb.Binaries().Dir))
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if _, err := sb.Down(ctx); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
	return sb
}

// up starts sb and fails the test on error.
func up(t *testing.T, sb *sandbox.Sandbox) sandbox.Info {
	t.Helper()
	info, err := sb.Up(sandboxtest.Context(t, 3*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	return info
}

// status inspects sb and fails the test on error.
func status(t *testing.T, sb *sandbox.Sandbox) sandbox.Status {
	t.Helper()
	st, err := sb.Status(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// pids maps component names to pids.
func pids(st sandbox.Status) map[string]int {
	out := map[string]int{}
	for _, c := range st.Components {
		out[c.Name] = c.PID
	}
	return out
}

// gone reports whether pid no longer names a live process (a zombie counts
// as gone: it runs nothing and holds no socket).
func gone(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	i := bytes.LastIndexByte(stat, ')')
	return i > 0 && i+2 < len(stat) && stat[i+2] == 'Z'
}
