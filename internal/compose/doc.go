// Package compose loads a release's composition, by compiling and running
// its Go function or by reading its YAML/JSON files, into Kubernetes objects.
package compose
