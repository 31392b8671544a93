// Package sandbox runs a real local Kubernetes control plane (etcd,
// kube-apiserver, kube-controller-manager, kube-scheduler and kwok, started by
// kwokctl's binary runtime) bound to 127.0.0.1, for newcomers and for tests.
// It builds and caches the pinned binaries, starts and stops named sandboxes,
// writes their kubeconfig files and reports their processes.
package sandbox
