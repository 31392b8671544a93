// Package importgen turns Kubernetes objects into the files of a Piceli Go
// module: builder calls where the app builders say an object exactly,
// typed k8s.io/api literals where they do not, YAML files for kinds
// without Go types, and secret declarations that never carry a value. It
// is a pure core: objects in, file contents out, deterministic, no I/O.
// Whether a form really reproduces its object is for the caller to check
// by rendering the result (see internal/importer).
package importgen
