// Package cli is the piceli command tree: each command parses its flags, calls a
// library package and prints the result. Exit codes are decided here only.
package cli
