// Package chart renders a vendored Helm chart, pinned by its digest, into
// a release's objects in process with the Helm v4 SDK: no helm binary, no
// network, lookup answering nothing, hooks mapped onto waves.
package chart
