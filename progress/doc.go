// Package progress is the progress of a release run as events: what
// package release's Apply, Resume and Rollback, and package deploy's Run,
// report while they work, so that a terminal display, plain lines and
// JSON lines ("piceli.progress/v1") are all renderings of one stream. It
// imports nothing of Piceli.
package progress
