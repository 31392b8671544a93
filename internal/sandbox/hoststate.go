package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// kubeletSysctls are the kernel settings the kubelet sets at start
// (vm.overcommit_memory=1, kernel.panic=10, kernel.panic_on_oops=1, ...);
// Down puts back the values they had before.
var kubeletSysctls = []string{
	"vm.overcommit_memory", "vm.panic_on_oom", "kernel.panic", "kernel.panic_on_oops",
	"kernel.keys.root_maxkeys", "kernel.keys.root_maxbytes",
}

func sysctlPath(key string) string {
	return filepath.Join("/proc/sys", strings.ReplaceAll(key, ".", "/"))
}

// readSysctls reads the current values of keys.
func readSysctls(keys []string) (map[string]string, error) {
	out := map[string]string{}
	for _, k := range keys {
		v, err := os.ReadFile(sysctlPath(k))
		if err != nil {
			return nil, fmt.Errorf("read sysctl %s: %w", k, err)
		}
		out[k] = strings.TrimSpace(string(v))
	}
	return out, nil
}

// writeSysctls sets each key to its value.
func writeSysctls(values map[string]string) error {
	var errs []error
	for k, v := range values {
		if err := os.WriteFile(sysctlPath(k), []byte(v+"\n"), 0o644); err != nil {
			errs = append(errs, fmt.Errorf("restore sysctl %s=%s: %w", k, v, err))
		}
	}
	return errors.Join(errs...)
}

// hostDirs are the directories outside the sandbox that the kubelet,
// containerd and the CNI plugins write to whatever they are told (parents
// first). The node records which did not exist, to remove them if left
// empty.
var hostDirs = []string{
	"/var/lib/kubelet", "/var/lib/kubelet/device-plugins", // the device manager's socket and checkpoint
	"/var/log/containers",                  // a symlink per container into the pod logs
	"/var/lib/cni", "/var/lib/cni/results", // CNI results, per sandbox and interface
	"/run/containerd", "/run/containerd/s", // shim sockets
}

// deviceManagerFiles are what the kubelet's device manager writes to the
// fixed /var/lib/kubelet/device-plugins.
var deviceManagerFiles = []string{"kubelet.sock", "kubelet_internal_checkpoint"}

func missingDirs(dirs []string) []string {
	var out []string
	for _, d := range dirs {
		if _, err := os.Lstat(d); errors.Is(err, fs.ErrNotExist) {
			out = append(out, d)
		}
	}
	return out
}

// removeHostLeftovers removes what the node's processes left outside the
// sandbox: container log links into its directory, CNI results of its pod
// sandboxes, the device manager's files, and the directories created for
// them when they are left empty.
func removeHostLeftovers(n realNode, st nodeState) error {
	errs := []error{removeLinksInto("/var/log/containers", n.dir), removeCNIResults(n)}
	for _, f := range deviceManagerFiles {
		errs = append(errs, removeIfExists(filepath.Join("/var/lib/kubelet/device-plugins", f)))
	}
	dirs := slices.Clone(st.CreatedDirs)
	slices.SortFunc(dirs, func(a, b string) int { return len(b) - len(a) })
	for _, d := range dirs {
		// One left non-empty holds what something else wrote: it stays.
		err := os.Remove(d)
		if err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTEMPTY) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// removeLinksInto removes the symlinks in dir that point below target.
func removeLinksInto(dir, target string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var errs []error
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		if dest, err := os.Readlink(path); err == nil && strings.HasPrefix(dest, target+string(filepath.Separator)) {
			errs = append(errs, removeIfExists(path))
		}
	}
	return errors.Join(errs...)
}

// removeCNIResults removes the CNI result cache entries of the node's
// network and of the loopback networks of its pod sandboxes (named
// NETWORK-CONTAINERID-IFNAME).
func removeCNIResults(n realNode) error {
	const dir = "/var/lib/cni/results"
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	ids := podSandboxIDs(n)
	var errs []error
	for _, e := range entries {
		if ours(e.Name(), n.network(), ids) {
			errs = append(errs, removeIfExists(filepath.Join(dir, e.Name())))
		}
	}
	return errors.Join(errs...)
}

func ours(cacheFile, network string, sandboxIDs []string) bool {
	if strings.HasPrefix(cacheFile, network+"-") {
		return true
	}
	for _, id := range sandboxIDs {
		if strings.Contains(cacheFile, "-"+id+"-") {
			return true
		}
	}
	return false
}

// podSandboxIDs lists the pod sandboxes containerd's CRI plugin recorded.
func podSandboxIDs(n realNode) []string {
	entries, _ := os.ReadDir(filepath.Join(n.containerdRoot(), "io.containerd.grpc.v1.cri", "sandboxes"))
	var ids []string
	for _, e := range entries {
		ids = append(ids, e.Name())
	}
	return ids
}

func removeIfExists(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
