// Package archive is the session archive: the durable, secret-free JSON
// record of what one run of a release declared and how it went, which the
// operations lens reconciles with a cluster.
package archive
