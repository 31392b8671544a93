// Package lock keeps one writer per release: a file lock on this machine that
// dies with its process, a cluster Lease that names its holder across machines
// (a bootstrap Lease in kube-system while the target namespace does not exist),
// and the owner file that ties a state directory to one release.
package lock
