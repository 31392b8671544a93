// Package render turns a loaded composition into manifests: namespaces
// defaulted, server-owned fields removed, objects in a stable order, encoded
// byte-identically run to run and never with a Secret's values. It never contacts a
// cluster.
package render
