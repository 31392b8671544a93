package sandbox

// Pinned versions of the sandbox components. They must match the modules
// under tools/sandbox; the binary cache directory is keyed by them.
const (
	KubeVersion = "v1.36.3"
	EtcdVersion = "v3.6.8"
	KwokVersion = "v0.8.0"
)

// CacheKey names the binary cache directory for the pinned versions.
func CacheKey() string {
	return "k8s-" + KubeVersion + "-etcd-" + EtcdVersion + "-kwok-" + KwokVersion
}
