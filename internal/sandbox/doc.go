// Package sandbox runs a real local Kubernetes control plane (etcd,
// kube-apiserver, kube-controller-manager, kube-scheduler and kwok, started by
// kwokctl's binary runtime) bound to 127.0.0.1, for newcomers and for tests.
// It builds and caches the pinned binaries, starts and stops named sandboxes,
// writes their kubeconfig files and reports their processes.
//
// Beside kwokctl's processes a sandbox runs an agent of its own (RunAgent,
// started by Up when Options.Agent names a command): the provisioner of the
// default StorageClass StorageClassName, which binds claims to hostPath
// volumes under Layout.VolumeDir and removes them with their claims, and a
// controller that gives LoadBalancer Services the ingress address
// 127.0.0.1. It also serves kube-apiserver's egress proxy (see egress.go)
// on a unix socket, its only one: the API server's connections to webhooks,
// aggregated APIs and kubelets go through it, and it dials loopback
// addresses and the real node's pods only. Fake nodes take NodePods pods
// each.
//
// kwok plays every kubelet but one: a sandbox started with
// Options.RealNode also has RealNodeName, a kubelet with Debian's containerd
// and runc whose pods really run (see realnode.go), on a bridge with no way
// off the machine; Load imports images into it. Its pods reach the API
// server through the API forwarder (see apiforward.go), which the agent's
// executable runs on the bridge's host address alone, leading only to the
// API server (RealNodeInfo.APIServer, APIServerEnv). On kwok's nodes, by default
// a pod becomes Running and Ready as soon as it is scheduled. A pod annotated SimulateAnnotation
// (piceli.dev/kwok-simulate) never starts instead:
//
//   - image-pull-backoff: it stays Pending, its containers waiting in
//     ImagePullBackOff;
//   - crash-loop: it runs with its containers waiting in CrashLoopBackOff
//     after exiting with code 1.
//
// These are kwok Stages (stages/*.yaml) that Up writes into the kwokctl
// configuration after kwok's default stages, which the kwok-stages binary
// prints; kwok's pod-ready stage gets one more selector expression so it
// leaves annotated pods alone.
package sandbox
