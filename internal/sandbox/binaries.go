package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Names of the binaries in a cache directory.
const (
	BinEtcd                  = "etcd"
	BinKubeAPIServer         = "kube-apiserver"
	BinKubeControllerManager = "kube-controller-manager"
	BinKubeScheduler         = "kube-scheduler"
	BinKubectl               = "kubectl"
	BinKwok                  = "kwok"
	BinKwokctl               = "kwokctl"
	BinKwokStages            = "kwok-stages"
	// The real node's: the kubelet and the static pause executable packed
	// into its sandbox image.
	BinKubelet = "kubelet"
	BinPause   = "pause"
)

// ErrBinariesMissing reports that the binary cache lacks some binaries and
// no tools modules were found to build them.
var ErrBinariesMissing = errors.New("sandbox binaries missing")

// Binaries is a directory holding the pinned sandbox binaries, one file per
// name above. It does not build them: see BuildBinaries.
type Binaries struct {
	Dir string
}

// DefaultBinDir is where binaries for the pinned versions are cached:
// $PICELI_CACHE_DIR/sandbox/<CacheKey>/bin, or under os.UserCacheDir()/piceli
// when PICELI_CACHE_DIR is unset.
func DefaultBinDir() (string, error) {
	root := os.Getenv("PICELI_CACHE_DIR")
	if root == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("locate sandbox binary cache: %w", err)
		}
		root = filepath.Join(base, "piceli")
	}
	return filepath.Join(root, "sandbox", CacheKey(), "bin"), nil
}

// Path is the file of the named binary.
func (b Binaries) Path(name string) string {
	return filepath.Join(b.Dir, name)
}

// Missing lists the control plane's binaries that are not executable files
// in Dir, in the order they are built. The real node's are not among them:
// see MissingRealNode.
func (b Binaries) Missing() []string { return b.missing(false) }

// MissingRealNode lists the real node's binaries (kubelet, pause) that are
// not executable files in Dir.
func (b Binaries) MissingRealNode() []string { return b.missing(true) }

func (b Binaries) missing(realNode bool) []string {
	var missing []string
	for _, g := range buildGroups {
		if g.realNode != realNode {
			continue
		}
		for _, name := range g.binaries {
			if !isExecutable(b.Path(name)) {
				missing = append(missing, name)
			}
		}
	}
	return missing
}

func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}
