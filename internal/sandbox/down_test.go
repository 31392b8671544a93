package sandbox_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/pynenc/piceli/internal/sandbox"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
)

// Down leaves no process, listener, mount or volume of the sandbox behind,
// the agent's included, and removes its kubeconfig; a second Down has
// nothing to stop.
func TestDownLeavesNoProcess(t *testing.T) {
	sb := openExtra(t)
	info := up(t, sb)
	before := status(t, sb)
	if !slices.Contains(componentNames(before), sandbox.AgentName) {
		t.Fatalf("components = %v; want %s among them", componentNames(before), sandbox.AgentName)
	}
	volume := provisionOne(t, info)
	egressSocket := sb.Layout().EgressSocket()
	if fi, err := os.Lstat(egressSocket); err != nil || fi.Mode().Type() != fs.ModeSocket {
		t.Fatalf("egress socket %s: %v; want the agent's socket there", egressSocket, err)
	}

	stopped, err := sb.Down(t.Context())
	if err != nil || !stopped {
		t.Fatalf("Down = %t, %v; want true, nil", stopped, err)
	}
	listened := map[string]string{}
	for _, c := range before.Components {
		if !gone(c.PID) {
			t.Errorf("%s (pid %d) still running after Down", c.Name, c.PID)
		}
		for _, addr := range c.Listen {
			listened[addr] = c.Name
		}
	}
	if len(listened) == 0 {
		t.Fatalf("status before Down lists no listener: the check below would prove nothing")
	}
	// Another sandbox may take a freed port at once (kwokctl picks ports
	// counting down from 32767): only a listener of this sandbox counts.
	for addr, pid := range listenersOn(t, listened) {
		if cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); bytes.Contains(cmdline, []byte(sb.Layout().Dir)) {
			t.Errorf("%s's address %s is still listened on after Down, by pid %d of the sandbox", listened[addr], addr, pid)
		}
	}
	left, err := sandbox.ProcessesOf(sb.Layout().ClusterDir())
	if err != nil || len(left) > 0 {
		t.Errorf("processes running from %s after Down = %v, %v; want none", sb.Layout().ClusterDir(), left, err)
	}
	if mounts, err := os.ReadFile("/proc/self/mountinfo"); err != nil || bytes.Contains(mounts, []byte(sb.Layout().Dir)) {
		t.Errorf("mounts under %s after Down (or unreadable: %v):\n%s", sb.Layout().Dir, err, mounts)
	}
	if _, err := os.Lstat(filepath.Dir(egressSocket)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("runtime directory %s after Down: %v; want it gone", filepath.Dir(egressSocket), err)
	}
	if _, err := os.Stat(volume); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("volume directory %s after Down: stat error %v, want not exist", volume, err)
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

// listenersOn finds the processes that listen on the addresses now, one
// per address.
func listenersOn(t *testing.T, addrs map[string]string) map[string]int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		found, err := sandbox.Listeners(pid)
		if err != nil {
			continue // gone, or not ours to read
		}
		for _, a := range found {
			if _, ok := addrs[a.String()]; ok {
				out[a.String()] = pid
			}
		}
	}
	return out
}

// provisionOne has the agent provision a volume and returns its directory.
func provisionOne(t *testing.T, info sandbox.Info) string {
	t.Helper()
	cluster, err := sandboxtest.Connect(info.Kubeconfig, info.Context)
	if err != nil {
		t.Fatal(err)
	}
	claims := cluster.Clientset.CoreV1().PersistentVolumeClaims("default")
	if _, err := claims.Create(t.Context(), claim("data", "1Gi"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var volume string
	sandboxtest.Eventually(t, time.Minute, "PersistentVolumeClaim/default/data Bound", func(ctx context.Context) (bool, error) {
		c, err := claims.Get(ctx, "data", metav1.GetOptions{})
		if err != nil || c.Status.Phase != corev1.ClaimBound {
			return false, err
		}
		pv, err := cluster.Clientset.CoreV1().PersistentVolumes().Get(ctx, c.Spec.VolumeName, metav1.GetOptions{})
		if err != nil || pv.Spec.HostPath == nil {
			return false, err
		}
		volume = pv.Spec.HostPath.Path
		return true, nil
	})
	if _, err := os.Stat(volume); err != nil {
		t.Fatalf("volume directory before Down: %v", err)
	}
	return volume
}
