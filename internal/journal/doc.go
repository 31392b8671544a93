// Package journal is the append-only, checksummed, crash-safe record of one
// apply run, and the pure fold (Replay) that turns its records into the
// state resume, stop and compensation decide from.
//
// # File format
//
// A journal starts with the 8-byte magic "PICELIJ1", followed by frames.
// Each frame is a 4-byte little-endian payload length, a 4-byte CRC32C
// (Castagnoli) of those length bytes, the payload (the JSON of one Record,
// at most MaxPayload bytes) and a 4-byte CRC32C of the payload. An
// incomplete last frame, a complete last frame whose payload checksum
// fails, or an all-zero tail is a torn tail: a crash interrupted an append
// whose fsync never returned, and OpenAppend truncates it away. Any other
// damage is corruption, reported as a *CorruptError naming the byte offset
// of the bad frame, and never repaired. See frame.go for the details.
package journal
