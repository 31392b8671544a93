// Package wire is the versioned JSON protocol between Piceli and a
// composition program: the context document ("piceli.context/v1") Piceli
// writes to the program's standard input and the composition document
// ("piceli.composition/v1") the program writes back. Package app writes
// it; Piceli's loader reads it. It imports only the document package
// object.
package wire
