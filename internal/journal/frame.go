package journal

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
)

// Frame layout, all integers little-endian:
//
//	offset 0   magic    "PICELIJ1"                     8 bytes, once per file
//	then, per record:
//	+0         length   uint32 payload length n         4 bytes
//	+4         hcrc     CRC32C(length bytes)            4 bytes
//	+8         payload  JSON of one Record              n bytes (n <= MaxPayload)
//	+8+n       pcrc     CRC32C(payload)                 4 bytes
//
// Classification while walking frames from the start:
//   - torn tail (repairable): fewer bytes remain than the frame needs
//     (incomplete header, or payload or trailer past EOF); the last frame is
//     complete but its payload checksum fails (a crash can leave a
//     full-length record whose pages never reached the disk); the remaining
//     bytes are all zero (a filesystem can extend a file with zero blocks
//     whose data was never written). A file shorter than the magic that is a
//     prefix of it is a torn tail at offset 0.
//   - corruption (hard error): a complete header whose checksum fails, a
//     length above MaxPayload, a payload checksum failure on a frame
//     followed by more bytes, a payload that is not a Record, or a bad
//     magic (offset 0).
//
// A bad header checksum is corruption even on the last frame: the header is
// written before the payload in the same write, so a mismatch there is not
// the signature of an interrupted append. The length is checked by its own
// CRC so a flipped length bit can never send the reader past real records.

const (
	magic       = "PICELIJ1"
	headerSize  = 8
	trailerSize = 4

	// MaxPayload is the largest record payload in bytes; a frame header
	// claiming more is corruption, and Append refuses larger records.
	MaxPayload = 1 << 20
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func checksum(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

// appendFrame appends the frame holding payload to buf.
func appendFrame(buf, payload []byte) []byte {
	var h [headerSize]byte
	binary.LittleEndian.PutUint32(h[0:4], uint32(len(payload)))
	binary.LittleEndian.PutUint32(h[4:8], checksum(h[0:4]))
	buf = append(buf, h[:]...)
	buf = append(buf, payload...)
	return binary.LittleEndian.AppendUint32(buf, checksum(payload))
}

// fault is a problem with the frame at some offset: torn (repairable) or
// corrupt (not).
type fault struct {
	torn   bool
	reason string
}

func torn(reason string) *fault { return &fault{torn: true, reason: reason} }

func corrupt(format string, args ...any) *fault {
	return &fault{reason: fmt.Sprintf(format, args...)}
}

// readFrame decodes the frame at the start of rest and returns its payload
// and total size.
func readFrame(rest []byte) ([]byte, int, *fault) {
	if allZero(rest) {
		return nil, 0, torn("zero-filled tail")
	}
	if len(rest) < headerSize {
		return nil, 0, torn("incomplete frame header")
	}
	if checksum(rest[0:4]) != binary.LittleEndian.Uint32(rest[4:8]) {
		return nil, 0, corrupt("header checksum mismatch")
	}
	n := binary.LittleEndian.Uint32(rest[0:4])
	if n > MaxPayload {
		return nil, 0, corrupt("impossible payload length %d", n)
	}
	size := headerSize + int(n) + trailerSize
	if len(rest) < size {
		return nil, 0, torn("record extends past end of file")
	}
	payload := rest[headerSize : headerSize+n]
	if checksum(payload) != binary.LittleEndian.Uint32(rest[headerSize+n:size]) {
		if len(rest) == size {
			return nil, 0, torn("last record checksum mismatch")
		}
		return nil, 0, corrupt("payload checksum mismatch")
	}
	return payload, size, nil
}

// checkMagic reports a torn (short prefix) or corrupt magic header.
func checkMagic(data []byte) *fault {
	switch {
	case len(data) < len(magic) && bytes.HasPrefix([]byte(magic), data):
		return torn("incomplete magic header")
	case len(data) < len(magic) || string(data[:len(magic)]) != magic:
		return corrupt("bad magic header")
	}
	return nil
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return len(b) > 0
}
