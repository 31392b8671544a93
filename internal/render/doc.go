// Package render turns a loaded composition into manifests: namespaces
// defaulted, server-owned fields and secret values removed, objects in a
// stable order, encoded byte-identically run to run. It never contacts a
// cluster.
package render
