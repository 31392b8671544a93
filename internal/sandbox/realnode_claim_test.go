package sandbox_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/pynenc/piceli/internal/sandbox"
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
