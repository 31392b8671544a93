// Package codegen is the shell around internal/crdgen: it reads
// CustomResourceDefinitions from files or, read-only, from a cluster,
// generates their Go packages and writes them inside one output
// directory, replacing only files it wrote itself.
package codegen
