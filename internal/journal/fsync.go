//go:build !piceli_nofsync

package journal

// fsyncs is whether Append and Create make records durable with fsync. Only
// a binary built with the piceli_nofsync tag turns it off (fsync_off.go):
// the benchmark uses one to measure what the journal's durability costs.
// No option, flag or variable reaches it.
const fsyncs = true
