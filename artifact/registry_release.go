package artifact

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"

	"github.com/pynenc/piceli/internal/atomicfile"
)

// RegistryPort is the port of the in-cluster registry's Service and
// container, as registry:2 images listen.
const RegistryPort = 5000

// RegistryReleaseOptions describe an in-cluster registry for RegistryRelease.
// Kubeconfig, Context, Namespace and Image are required.
type RegistryReleaseOptions struct {
	Dir        string // where the release spec, manifests and state go; required
	Kubeconfig string
	Context    string
	Namespace  string
	// Image is a registry:2-compatible image (the distribution registry),
	// pinned by digest: name@sha256:<64 hex>.
	Image string
	// Storage is the size of the registry's claim; empty means "10Gi".
	Storage string
	// Uninstall writes the release that removes the registry's Deployment
	// and Service (pruned) and keeps its claim as installed, so the images
	// stay. It needs the release an install wrote in Dir; Storage is
	// ignored.
	Uninstall bool
}

var (
	pinnedImageRE = regexp.MustCompile(`^[^@\s]+@sha256:[0-9a-f]{64}$`)
	quantityRE    = regexp.MustCompile(`^[0-9]+(Ki|Mi|Gi|Ti)$`)
)

// RegistryRelease writes the release of an optional in-cluster registry
// into opts.Dir: release.toml (release "registry", its state in
// Dir/state, prune on) and manifests/registry.yaml (a Deployment of the
// image, a Service on port 5000 and a claim for its storage; for
// Uninstall, the claim alone). It returns the spec's path. The release
// goes through the engine like any other: plan, approve, apply. Nothing
// reaches a cluster here.
func RegistryRelease(opts RegistryReleaseOptions) (string, error) {
	if err := opts.check(); err != nil {
		return "", err
	}
	if opts.Uninstall {
		if err := opts.installedStorage(); err != nil {
			return "", err
		}
	}
	if err := os.MkdirAll(filepath.Join(opts.Dir, "manifests"), 0o755); err != nil {
		return "", err
	}
	kubeconfig, err := filepath.Abs(opts.Kubeconfig)
	if err != nil {
		return "", err
	}
	spec := fmt.Sprintf(`# Written by piceli registry; each install or uninstall rewrites it.
[target]
kubeconfig = %s
context = %s
namespace = %s

[release]
name = "registry"
composition = "manifests/"
state_dir = "state"
prune = true
`, strconv.Quote(kubeconfig), strconv.Quote(opts.Context), strconv.Quote(opts.Namespace))
	path := filepath.Join(opts.Dir, "release.toml")
	if err := atomicfile.Write(path, []byte(spec), 0o644); err != nil {
		return "", err
	}
	if err := atomicfile.Write(filepath.Join(opts.Dir, "manifests", "registry.yaml"), []byte(opts.manifests()), 0o644); err != nil {
		return "", err
	}
	return path, nil
}

var storageRE = regexp.MustCompile(`(?m)^      storage: (\S+)$`)

// installedStorage reads the claim size of the release an install wrote.
func (o *RegistryReleaseOptions) installedStorage() error {
	data, err := os.ReadFile(filepath.Join(o.Dir, "manifests", "registry.yaml"))
	if err != nil {
		return refusedf("registry: no installed registry release in %s (%v); uninstall uses the directory of the install", o.Dir, err)
	}
	m := storageRE.FindSubmatch(data)
	if m == nil {
		return refusedf("registry: %s holds no claim size", filepath.Join(o.Dir, "manifests", "registry.yaml"))
	}
	o.Storage = string(m[1])
	return nil
}

func (o *RegistryReleaseOptions) check() error {
	if o.Storage == "" {
		o.Storage = "10Gi"
	}
	switch {
	case o.Dir == "":
		return refusedf("registry: no directory for its release")
	case o.Kubeconfig == "" || o.Context == "" || o.Namespace == "":
		return refusedf("registry: name the kubeconfig file, its context and the namespace: piceli never guesses a cluster")
	case !o.Uninstall && !pinnedImageRE.MatchString(o.Image):
		return refusedf("registry: image %q must be a registry:2-compatible image pinned by digest (name@sha256:<64 hex>)", o.Image)
	case !quantityRE.MatchString(o.Storage):
		return refusedf("registry: storage size %q: want a size such as 10Gi", o.Storage)
	}
	return nil
}

const registryClaim = `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: registry-data
  labels:
    app.kubernetes.io/name: registry
spec:
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: %s
`

const registryWorkload = `---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: registry
  labels:
    app.kubernetes.io/name: registry
spec:
  replicas: 1
  strategy:
    type: Recreate
  selector:
    matchLabels:
      app.kubernetes.io/name: registry
  template:
    metadata:
      labels:
        app.kubernetes.io/name: registry
    spec:
      securityContext:
        runAsNonRoot: true
        runAsUser: 65532
        fsGroup: 65532
      containers:
      - name: registry
        image: %s
        ports:
        - name: registry
          containerPort: %d
        env:
        - name: REGISTRY_HTTP_ADDR
          value: ":%d"
        - name: REGISTRY_STORAGE_FILESYSTEM_ROOTDIRECTORY
          value: /var/lib/registry
        readinessProbe:
          httpGet:
            path: /v2/
            port: %d
        volumeMounts:
        - name: data
          mountPath: /var/lib/registry
      volumes:
      - name: data
        persistentVolumeClaim:
          claimName: registry-data
---
apiVersion: v1
kind: Service
metadata:
  name: registry
  labels:
    app.kubernetes.io/name: registry
spec:
  selector:
    app.kubernetes.io/name: registry
  ports:
  - name: registry
    port: %d
    targetPort: registry
`

func (o *RegistryReleaseOptions) manifests() string {
	m := fmt.Sprintf(registryClaim, o.Storage)
	if !o.Uninstall {
		m += fmt.Sprintf(registryWorkload, o.Image, RegistryPort, RegistryPort, RegistryPort, RegistryPort)
	}
	return m
}
