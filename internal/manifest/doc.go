// Package manifest reads Kubernetes objects from YAML and JSON files,
// multi-document streams and List kinds, and names the file and line of each
// object and of each error.
package manifest
