package sandbox_test

import (
	"errors"
	"io/fs"
	"os"
	"testing"

	"github.com/pynenc/piceli/internal/sandbox"
)

// Down leaves no process of the sandbox behind and removes its kubeconfig; a
// second Down has nothing to stop.
func TestDownLeavesNoProcess(t *testing.T) {
	sb := openExtra(t)
	info := up(t, sb)
	before := status(t, sb)

	stopped, err := sb.Down(t.Context())
	if err != nil || !stopped {
		t.Fatalf("Down = %t, %v; want true, nil", stopped, err)
	}
	for _, c := range before.Components {
		if !gone(c.PID) {
			t.Errorf("%s (pid %d) still running after Down", c.Name, c.PID)
		}
	}
	left, err := sandbox.ProcessesOf(sb.Layout().ClusterDir())
	if err != nil || len(left) > 0 {
		t.Errorf("processes running from %s after Down = %v, %v; want none", sb.Layout().ClusterDir(), left, err)
	}
	if _, err := os.Stat(info.Kubeconfig); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("kubeconfig %s after Down: stat error %v, want not exist", info.Kubeconfig, err)
	}
	if st := status(t, sb); st.Running || len(st.Components) != 0 {
		t.Errorf("status after Down = %+v, want not running, no components", st)
	}
	if stopped, err := sb.Down(t.Context()); stopped || err != nil {
		t.Errorf("second Down = %t, %v; want false, nil", stopped, err)
	}
}
