// Package check runs a release's post-release checks (http, tcp, command,
// job) against the cluster through loopback port-forwards, with retries,
// and reports each as a bounded excerpt with every secret value taken out.
package check
