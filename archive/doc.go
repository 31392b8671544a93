// Package archive is the session archive document ("schema":
// "piceli.session-archive/v1"): the durable, secret-free JSON record of
// what one run of a release declared and how it went, which package
// release writes and package observe reconciles with a cluster. It
// imports only the other document packages (object, plan).
package archive
