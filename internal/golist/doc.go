// Package golist runs `go list -deps -json` on one package directory and
// decodes what it prints: the one driver of go list for the composition
// loader and the image builder, bounded in what it reads and stopped with
// its context.
package golist
