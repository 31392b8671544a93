// Package crdgen turns CustomResourceDefinitions into Go packages: one
// package per API group and served version, one type per kind, from each
// version's OpenAPI v3 schema. It is a pure core: CRD documents in, file
// contents out, deterministic, no I/O. Everything it writes from a CRD
// passes through a strict identifier sanitiser, strconv.Quote or a comment
// escaper, so no name, description or enum value can end a comment or a
// string or start code.
package crdgen
