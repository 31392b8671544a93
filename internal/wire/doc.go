// Package wire is the versioned JSON protocol between Piceli and a
// composition program: the context document Piceli writes to the program's
// standard input and the composition document the program writes back.
// Package app writes it (its public names are aliases of these); the
// loader and the engine read it, so none of them imports the builder.
package wire
