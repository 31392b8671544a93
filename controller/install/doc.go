// Package install builds the Piceli controller's own release and prepares
// it for the release engine, so installing, upgrading and removing the
// controller are plans approved by hash like any other release.
//
// The release is made in memory: typed objects (the Namespace, the Release
// CRD, the controller's ServiceAccount, its least-privilege ClusterRole and
// namespace Role with their bindings, the deployer ClusterRole
// controller.DeployerRole, a two-replica Deployment with leader election
// and a metrics Service) and the declaration of the state signing key's
// Secret by source (a file on the operator's machine, never a value). It
// is published into an OCI layout beside a small release.toml in a
// directory of its own (Dir), and opened with release.Options.Artifact, so
// nothing is compiled and no secret value reaches a plan, journal or file
// other than the engine's owner-only secret store.
//
// Prepare writes that directory for an install; PrepareUninstall for the
// removal: the same release declaring only what stays (the CRD, so that
// the Releases people wrote survive), with prune on, so its plan deletes
// exactly the objects the install created and nothing a Release applied.
// Neither contacts a cluster: the caller plans and applies through package
// release.
//
// Permissions. The controller's own ClusterRole (ControllerRules) lets it
// read and update Releases and their status, record Events, read
// RoleBindings (to see which namespaces bind it to the deployer role) and
// read the kube-system Namespace (the cluster's identity every plan
// records). It cannot read Secrets or write any other object anywhere:
// everything a Release applies, and any credentials Secret its source
// names, it reaches only in a namespace whose owner created a RoleBinding
// of DeployerRole (DeployerRules) to its ServiceAccount. Install never
// creates such a binding. Its Role in its own namespace covers the
// leader-election Lease and reading its own state signing key's Secret,
// by name.
package install
