package journal

import "bytes"

// AppendFrame appends payload to buf framed as a journal record is (see
// frame.go), for another append-only file that wants the same crash rules,
// such as a deploy's journal. A payload over MaxPayload is the caller's
// error to refuse.
func AppendFrame(buf, payload []byte) []byte { return appendFrame(buf, payload) }

// SplitFrames reads data as a file of frames behind the 8-byte header
// given, by the rules of this package's file format: it returns the
// payloads before any problem and either the torn tail (repairable: the
// caller truncates the file at Tail.Offset) or the corruption found. It
// never modifies data.
func SplitFrames(data []byte, header string) ([][]byte, *Tail, *CorruptError) {
	switch {
	case len(data) < len(header) && bytes.HasPrefix([]byte(header), data):
		return nil, &Tail{Offset: 0, Dropped: int64(len(data)), Reason: "incomplete header"}, nil
	case len(data) < len(header) || string(data[:len(header)]) != header:
		return nil, nil, &CorruptError{Offset: 0, Reason: "bad header"}
	}
	var out [][]byte
	for off := len(header); off < len(data); {
		payload, size, f := readFrame(data[off:])
		if f != nil {
			tail, cerr := classify(f, off, len(data))
			if cerr != nil {
				return nil, nil, cerr
			}
			return out, tail, nil
		}
		out = append(out, payload)
		off += size
	}
	return out, nil, nil
}
