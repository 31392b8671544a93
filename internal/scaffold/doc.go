// Package scaffold writes a new Piceli project: a Go module with a typed
// composition and a release spec that renders without a cluster.
package scaffold
