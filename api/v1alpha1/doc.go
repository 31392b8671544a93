// Package v1alpha1 is the piceli.dev/v1alpha1 API: the Release custom
// resource the Piceli controller reconciles.
//
// A Release names where its revisions come from (an OCI artifact written by
// `piceli publish`, or a Git repository), how the release is named and
// where it goes, and who approves: a person, by writing a plan's hash into
// spec.approve (`piceli controller approve`), or a Policy the Release
// declares. The controller plans every new source revision with the same
// engine `piceli release plan` uses and reports the plan's hash, counts and
// changed fields in status; it applies exactly the approved plan.
//
// The Release is the release spec: its fields are what release.toml's
// [release] table says for a release run from a laptop, with the target
// fixed to the cluster the controller runs in and the state kept there
// (state = "cluster"), so laptops and the controller share history and the
// release's Lease.
package v1alpha1
