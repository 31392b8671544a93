// Package artifacttest starts the real parts artifact tests deliver to, each
// private to one test and on loopback: a containerd on its own socket, an
// sshd on its own port with its own host key, a distribution registry with
// its own storage; and copies the services example into a fresh module.
// A missing Debian package skips the test locally and fails it under
// CI=true, where .ci/run installs them.
package artifacttest
