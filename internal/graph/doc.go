// Package graph orders objects into apply stages: the dependency order of
// kinds (namespaces and CRDs first, policies last) plus explicit dependencies.
package graph
