// Package artifact builds deterministic OCI image layouts from a build.toml
// and its lock file, verifies them, and delivers their images to a container
// runtime or a registry only through tools the caller grants.
//
// The flow is Pin (record every input by digest in the lock file), Build
// (read only pinned inputs, write one OCI image layout, byte-identical for
// the same inputs), Inspect (verify every blob) and Import (stream images
// into ctr, docker or ssh, or push them to a registry, writing a receipt).
// Nothing here pushes, imports or runs an external tool implicitly.
package artifact
