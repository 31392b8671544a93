package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ErrRealNodeUnavailable reports that this machine cannot run the real
// node: not root, a Debian package missing, or a real node already running.
var ErrRealNodeUnavailable = errors.New("real node unavailable")

// hostTools are the host programs the real node runs, found on PATH.
type hostTools struct {
	containerd, ctr, ip string
	cniDir              string // holds the CNI plugins
}

// realNodeCommands are the programs the real node needs on PATH, with the
// Debian package that installs each.
var realNodeCommands = []struct{ command, pkg string }{
	{"containerd", "containerd"},
	{"containerd-shim-runc-v2", "containerd"},
	{"ctr", "containerd"},
	{"runc", "runc"},
	{"ip", "iproute2"},
}

// cniPlugins are the CNI plugins the node's network uses; cniDirs are where
// Debian's containernetworking-plugins and upstream install them.
var (
	cniPlugins = []string{"bridge", "host-local", "loopback"}
	cniDirs    = []string{"/usr/lib/cni", "/opt/cni/bin"}
)

// hostCheck is what checkHost looks at, so tests can give another host.
type hostCheck struct {
	euid     int
	lookPath func(string) (string, error)
	cniDirs  []string
	// filesystems is /proc/filesystems.
	filesystems []byte
}

// CheckRealNodeHost reports whether this machine can run a real node:
// root, the Debian packages containerd, runc, containernetworking-plugins
// and iproute2, and overlayfs. The error (wrapping ErrRealNodeUnavailable)
// names every missing piece and the package that provides it. It does not
// look at the sandbox's binaries (see Binaries.MissingRealNode).
func CheckRealNodeHost() error {
	_, err := thisHost().check()
	return err
}

func thisHost() hostCheck {
	fsys, _ := os.ReadFile("/proc/filesystems")
	return hostCheck{euid: os.Geteuid(), lookPath: exec.LookPath, cniDirs: cniDirs, filesystems: fsys}
}

// checkRealNodeHost checks the host and that bins holds the kubelet and the
// pause executable.
func checkRealNodeHost(bins Binaries) (hostTools, error) {
	tools, err := thisHost().check()
	if err != nil {
		return tools, err
	}
	if missing := bins.MissingRealNode(); len(missing) > 0 {
		return tools, fmt.Errorf("%w: %s missing from %s: %s", ErrRealNodeUnavailable,
			strings.Join(missing, ", "), bins.Dir, BuildHint(bins.Dir))
	}
	return tools, nil
}

func (h hostCheck) check() (hostTools, error) {
	var problems []string
	if h.euid != 0 {
		problems = append(problems, fmt.Sprintf("it runs as root only (effective uid is %d): containerd and the kubelet create cgroups, mounts and a bridge", h.euid))
	}
	found := map[string]string{}
	for _, c := range realNodeCommands {
		path, err := h.lookPath(c.command)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s not found on PATH: install the Debian package %s", c.command, c.pkg))
		}
		found[c.command] = path
	}
	cniDir, ok := h.cniDir()
	if !ok {
		problems = append(problems, fmt.Sprintf("CNI plugins %s not found in %s: install the Debian package containernetworking-plugins",
			strings.Join(cniPlugins, ", "), strings.Join(h.cniDirs, " or ")))
	}
	if !bytes.Contains(h.filesystems, []byte("\toverlay\n")) {
		problems = append(problems, "the kernel offers no overlay filesystem (containerd's snapshotter needs it; try `modprobe overlay`)")
	}
	if len(problems) > 0 {
		return hostTools{}, fmt.Errorf("%w on this machine:\n  %s", ErrRealNodeUnavailable, strings.Join(problems, "\n  "))
	}
	return hostTools{containerd: found["containerd"], ctr: found["ctr"], ip: found["ip"], cniDir: cniDir}, nil
}

// cniDir returns the first directory holding every CNI plugin.
func (h hostCheck) cniDir() (string, bool) {
	for _, dir := range h.cniDirs {
		ok := true
		for _, p := range cniPlugins {
			if !isExecutable(filepath.Join(dir, p)) {
				ok = false
			}
		}
		if ok {
			return dir, true
		}
	}
	return "", false
}
