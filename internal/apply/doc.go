// Package apply runs an approved plan against its cluster: intent journaled
// before every write and outcome after it, server-side apply in waves with
// readiness between them, and resume, stop and compensation read from the
// journal.
package apply
