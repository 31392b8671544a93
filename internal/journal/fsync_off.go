//go:build piceli_nofsync

package journal

// fsyncs is off in this benchmark-only build (see fsync.go): records are
// written but not fsynced, so they are not durable.
const fsyncs = false
