// Package progress defines the events a release run reports while it works,
// so that a terminal display, plain lines and JSON lines are all renderings
// of one stream.
package progress
