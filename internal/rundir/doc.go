// Package rundir gives unix sockets a short, private directory that does not
// depend on where a checkout lives: Linux limits a socket's path to 107
// bytes, which a deep checkout alone can exceed.
package rundir
