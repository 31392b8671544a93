// Package observe is the operations lens: a read-only window that
// reconciles a session archive with a cluster, keeps per-user port-forward
// preferences, tails logs, and serves the same model as a loopback REST
// API with a browser UI. It never writes to the cluster: it adopts,
// changes and deletes nothing, and it does not replace the engine's
// approvals or Kubernetes RBAC.
package observe
