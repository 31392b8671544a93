package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// machineClaim is the file naming the sandbox whose real node this machine
// runs. There is one per machine because the kubelet and containerd keep
// some state at fixed paths (/var/lib/kubelet/device-plugins,
// /var/lib/cni/results, /run/containerd/s). It is on /run, so a reboot,
// which ends every node, forgets it.
var machineClaim = "/run/piceli-real-node"

// claim is the content of machineClaim.
type claim struct {
	ClusterDir string `json:"clusterDir"`
}

// claimMachine makes n the machine's real node. It refuses when another
// sandbox's node holds the claim and has not been torn down, and when a
// kubelet not started for n runs.
func claimMachine(n realNode) error {
	for range 2 {
		held, err := readClaim()
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return err
		case held.ClusterDir == n.clusterDir:
			return nil // ours, left by an earlier start of this sandbox
		case nodeStateExists(held.ClusterDir):
			return fmt.Errorf("%w: the sandbox in %s has a real node on this machine (or did not tear it down); "+
				"stop it with `piceli sandbox down` for that sandbox first: one real node per machine", ErrRealNodeUnavailable, held.ClusterDir)
		default: // its sandbox tore its node down or is gone
			if err := os.Remove(machineClaim); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("remove stale claim %s: %w", machineClaim, err)
			}
		}
		if pid, ok := otherKubelet(n); ok {
			return fmt.Errorf("%w: a kubelet (pid %d) already runs on this machine, and two cannot share it", ErrRealNodeUnavailable, pid)
		}
		if err := writeClaim(n); !errors.Is(err, fs.ErrExist) {
			return err
		}
		// Another sandbox claimed it meanwhile: look again.
	}
	return fmt.Errorf("%w: could not claim %s", ErrRealNodeUnavailable, machineClaim)
}

// nodeStateExists reports whether the sandbox whose cluster directory is
// clusterDir has a real node not torn down.
func nodeStateExists(clusterDir string) bool {
	_, err := os.Stat(filepath.Join(clusterDir, ownDirName, "node", "state.json"))
	return err == nil
}

func writeClaim(n realNode) error {
	raw, err := json.Marshal(claim{ClusterDir: n.clusterDir})
	if err != nil {
		return err
	}
	f, err := os.OpenFile(machineClaim, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return err
		}
		return fmt.Errorf("claim the machine's real node: %w", err)
	}
	_, err = f.Write(append(raw, '\n'))
	return errors.Join(err, f.Close())
}

func readClaim() (claim, error) {
	raw, err := os.ReadFile(machineClaim)
	if err != nil {
		return claim{}, fmt.Errorf("read %s: %w", machineClaim, err)
	}
	var c claim
	if err := json.Unmarshal(raw, &c); err != nil {
		return claim{}, fmt.Errorf("read %s: %w", machineClaim, err)
	}
	return c, nil
}

// releaseMachine removes the claim if n holds it.
func releaseMachine(n realNode) error {
	held, err := readClaim()
	if errors.Is(err, fs.ErrNotExist) || (err == nil && held.ClusterDir != n.clusterDir) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := os.Remove(machineClaim); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("release %s: %w", machineClaim, err)
	}
	return nil
}

// otherKubelet finds a running kubelet whose command line does not name
// n's directory.
func otherKubelet(n realNode) (int, bool) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, false
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		comm, err := os.ReadFile(filepath.Join("/proc", e.Name(), "comm"))
		if err == nil && strings.TrimSpace(string(comm)) == "kubelet" && alive(pid) && !belongsTo(pid, n.dir) {
			return pid, true
		}
	}
	return 0, false
}
