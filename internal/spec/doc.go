// Package spec loads and validates a release.toml: the target cluster, the
// release, its composition, pinned images, values and post-release checks.
package spec
