package journal

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/pynenc/piceli/internal/parallel"
	"github.com/pynenc/piceli/internal/statedir"
)

// CorruptError reports damage a crash cannot explain: the frame at Offset
// (0 for the magic header) fails its checks. A corrupt journal is never
// repaired automatically.
type CorruptError struct {
	Path   string
	Offset int64
	Reason string
}

// Error names the file, the offset and the reason.
func (e *CorruptError) Error() string {
	return fmt.Sprintf("journal %s: corrupt record at offset %d: %s", e.Path, e.Offset, e.Reason)
}

// Tail describes a torn tail: the bytes from Offset (the end of the last
// good frame, or 0 when even the magic is incomplete) to the end of the
// file, Dropped bytes in all, are the remains of an append that never
// became durable.
type Tail struct {
	Offset  int64
	Dropped int64
	Reason  string
}

// String describes the tail for a log line.
func (t *Tail) String() string {
	return fmt.Sprintf("torn tail at offset %d: %d bytes dropped (%s)", t.Offset, t.Dropped, t.Reason)
}

// Read returns the records of the journal at path. A torn tail is reported,
// not repaired: the file is never modified. Damage that is not a torn tail
// is a *CorruptError.
func Read(path string) ([]Record, *Tail, error) {
	data, err := statedir.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("journal %s: %w", path, err)
	}
	recs, tail, cerr := parse(data)
	if cerr != nil {
		cerr.Path = path
		return nil, nil, cerr
	}
	return recs, tail, nil
}

// parse decodes a whole journal file: the records before any problem, and
// either the torn tail or the corruption found. It never modifies data.
// Frames are checked in order; their records, most of the work in a long
// journal, are decoded on every core, and the first that does not decode
// is the corruption, as if read in order.
func parse(data []byte) ([]Record, *Tail, *CorruptError) {
	if f := checkMagic(data); f != nil {
		tail, cerr := classify(f, 0, len(data))
		return nil, tail, cerr
	}
	frames, stop, stopAt := readFrames(data)
	recs := make([]Record, len(frames))
	errs := make([]error, len(frames))
	parallel.Each(len(frames), 256, func(i int) { errs[i] = json.Unmarshal(frames[i].payload, &recs[i]) })
	for i, err := range errs {
		if err != nil {
			_, cerr := classify(corrupt("undecodable record: %v", err), frames[i].off, len(data))
			return nil, nil, cerr
		}
	}
	if stop == nil {
		return recs, nil, nil
	}
	tail, cerr := classify(stop, stopAt, len(data))
	if cerr != nil {
		return nil, nil, cerr
	}
	return recs, tail, nil
}

// frame is one frame's payload and its offset in the file.
type frame struct {
	off     int
	payload []byte
}

// readFrames reads data's frames after the magic, up to the first fault,
// which it returns with its offset.
func readFrames(data []byte) ([]frame, *fault, int) {
	var frames []frame
	for off := len(magic); off < len(data); {
		payload, size, f := readFrame(data[off:])
		if f != nil {
			return frames, f, off
		}
		frames = append(frames, frame{off: off, payload: payload})
		off += size
	}
	return frames, nil, 0
}

// classify turns a fault at off in a file of size end into a torn tail or
// a corruption.
func classify(f *fault, off, end int) (*Tail, *CorruptError) {
	if f.torn {
		return &Tail{Offset: int64(off), Dropped: int64(end - off), Reason: f.reason}, nil
	}
	return nil, &CorruptError{Offset: int64(off), Reason: f.reason}
}

// decodeFrame reads the frame at the start of rest as a Record.
func decodeFrame(rest []byte) (Record, int, *fault) {
	payload, size, f := readFrame(rest)
	if f != nil {
		return Record{}, 0, f
	}
	var rec Record
	if err := json.Unmarshal(payload, &rec); err != nil {
		return Record{}, 0, corrupt("undecodable record: %v", err)
	}
	return rec, size, nil
}

// StartedAt returns the time of a journal's first record, read from the
// journal's bytes, when that record starts a run; false when data holds
// no such record (empty, torn or damaged at its first record). It reads
// only the first record.
func StartedAt(data []byte) (time.Time, bool) {
	if checkMagic(data) != nil {
		return time.Time{}, false
	}
	rec, _, f := decodeFrame(data[len(magic):])
	if f != nil || rec.Type != RunStarted {
		return time.Time{}, false
	}
	return rec.Time, true
}
