package journal

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTornTailAtEveryByte cuts a three-record journal at every length
// inside its last record.
func TestTornTailAtEveryByte(t *testing.T) {
	full, ends := writeJournal(t, sample())
	data := readBytes(t, full)
	end2 := ends[1]
	for cut := end2 + 1; cut < ends[2]; cut++ {
		t.Run(fmt.Sprintf("cut at %d", cut), func(t *testing.T) {
			path := writeBytes(t, data[:cut])
			wantTail := &Tail{Offset: end2, Dropped: cut - end2}
			checkTornRead(t, path, wantTail, numbered(sample())[:2])
			checkRepairAndAppend(t, path, wantTail)
		})
	}
}

// checkTornRead checks that Read reports want without touching the file.
func checkTornRead(t *testing.T, path string, want *Tail, wantRecs []Record) {
	t.Helper()
	before := readBytes(t, path)
	recs, tail, err := Read(path)
	if err != nil {
		t.Fatalf("Read(%s) = %v, want a torn tail", path, err)
	}
	if diff := cmp.Diff(want, tail, ignoreReason); diff != "" {
		t.Errorf("Read(%s) tail mismatch (-want +got):\n%s", path, diff)
	}
	if diff := cmp.Diff(wantRecs, recs); diff != "" {
		t.Errorf("Read(%s) records mismatch (-want +got):\n%s", path, diff)
	}
	if !bytes.Equal(before, readBytes(t, path)) {
		t.Errorf("Read(%s) modified the file", path)
	}
}

// checkRepairAndAppend checks that OpenAppend truncates to want.Offset and
// that a record appended afterwards reads back cleanly.
func checkRepairAndAppend(t *testing.T, path string, want *Tail) {
	t.Helper()
	w, recs, tail, err := OpenAppend(path, Options{})
	if err != nil {
		t.Fatalf("OpenAppend(%s) = %v", path, err)
	}
	defer w.Close()
	if diff := cmp.Diff(want, tail, ignoreReason); diff != "" {
		t.Errorf("OpenAppend(%s) repair mismatch (-want +got):\n%s", path, diff)
	}
	if got, wantSize := size(t, path), max(want.Offset, int64(len(magic))); got != wantSize {
		t.Errorf("size after repair = %d, want %d", got, wantSize)
	}
	extra := Record{Type: RunStopped, Time: t0}
	mustAppend(t, w, extra)
	got, tail2, err := Read(path)
	if err != nil || tail2 != nil {
		t.Fatalf("Read after repair and append = %v, %v; want clean", tail2, err)
	}
	wantRecs := numbered(append(append([]Record{}, sampleUpTo(len(recs))...), extra))
	if diff := cmp.Diff(wantRecs, got); diff != "" {
		t.Errorf("Read after repair and append mismatch (-want +got):\n%s", diff)
	}
}

func sampleUpTo(n int) []Record { return sample()[:n] }

var ignoreReason = cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Reason" }, cmp.Ignore())

func TestTornTails(t *testing.T) {
	full, ends := writeJournal(t, sample())
	data := readBytes(t, full)
	tests := []struct {
		name string
		data []byte
		want *Tail
		recs int // records before the tail
	}{
		{"a last record whose payload checksum fails is a torn tail",
			flipBit(data, int(ends[2])-6, 0), &Tail{Offset: ends[1], Dropped: ends[2] - ends[1]}, 2},
		{"a zero-filled tail after the last record is a torn tail",
			append(bytes.Clone(data), make([]byte, 4096)...), &Tail{Offset: ends[2], Dropped: 4096}, 3},
		{"a partial magic header is a torn tail at offset 0",
			[]byte("PICE"), &Tail{Offset: 0, Dropped: 4}, 0},
		{"an empty file is a torn tail at offset 0",
			[]byte{}, &Tail{Offset: 0, Dropped: 0}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeBytes(t, tt.data)
			checkTornRead(t, path, tt.want, nilIfEmpty(numbered(sample())[:tt.recs]))
			checkRepairAndAppend(t, path, tt.want)
		})
	}
}

func nilIfEmpty(recs []Record) []Record {
	if len(recs) == 0 {
		return nil
	}
	return recs
}

// TestFlippedBitInEarlierRecord flips every bit of the magic and of the
// first two records of a three-record journal.
func TestFlippedBitInEarlierRecord(t *testing.T) {
	full, ends := writeJournal(t, sample())
	data := readBytes(t, full)
	for i := range int(ends[1]) {
		for bit := range 8 {
			path := writeBytes(t, flipBit(data, i, bit))
			checkCorrupt(t, path, frameStart(ends, int64(i)))
		}
	}
}

// frameStart is the offset of the frame holding byte i (0 for the magic).
func frameStart(ends []int64, i int64) int64 {
	start := int64(0)
	for _, end := range append([]int64{int64(len(magic))}, ends...) {
		if i < end {
			return start
		}
		start = end
	}
	return start
}

// checkCorrupt checks that Read and OpenAppend both report a *CorruptError
// at offset, and that neither touches the file.
func checkCorrupt(t *testing.T, path string, offset int64) {
	t.Helper()
	before := readBytes(t, path)
	_, _, err := Read(path)
	checkCorruptError(t, "Read", err, path, offset)
	w, _, _, err := OpenAppend(path, Options{})
	if w != nil {
		w.Close()
	}
	checkCorruptError(t, "OpenAppend", err, path, offset)
	if !bytes.Equal(before, readBytes(t, path)) {
		t.Errorf("reading corrupt journal %s modified it", path)
	}
}

func checkCorruptError(t *testing.T, fn string, err error, path string, offset int64) {
	t.Helper()
	var ce *CorruptError
	if !errors.As(err, &ce) {
		t.Fatalf("%s(%s) = %v, want *CorruptError at offset %d", fn, path, err, offset)
	}
	if ce.Offset != offset || ce.Path != path {
		t.Errorf("%s(%s) = %v, want offset %d", fn, path, err, offset)
	}
}

func TestCorruption(t *testing.T) {
	full, ends := writeJournal(t, sample())
	data := readBytes(t, full)
	tests := []struct {
		name   string
		data   []byte
		offset int64
		reason string
	}{
		{"a wrong magic", append([]byte("NOTAJRNL"), data[len(magic):]...), 0, "bad magic header"},
		{"a short file that is not a magic prefix", []byte("PIX"), 0, "bad magic header"},
		{"a bad header checksum on the last record", flipBit(data, int(ends[1]), 1), ends[1], "header checksum mismatch"},
		{"a length above MaxPayload", append(bytes.Clone(data), header(MaxPayload+1)...), ends[2], "impossible payload length 1048577"},
		{"a checksummed payload that is not a record", appendFrame(bytes.Clone(data), []byte("{nope")), ends[2], "undecodable record"},
		{"a non-zero byte after a zero run", append(append(bytes.Clone(data), make([]byte, 20)...), 1), ends[2], "header checksum mismatch"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeBytes(t, tt.data)
			checkCorrupt(t, path, tt.offset)
			_, _, err := Read(path)
			want := fmt.Sprintf("journal %s: corrupt record at offset %d: %s", path, tt.offset, tt.reason)
			if err == nil || len(err.Error()) < len(want) || err.Error()[:len(want)] != want {
				t.Errorf("Read(%s) = %v, want %q", path, err, want)
			}
		})
	}
}

func flipBit(data []byte, i, bit int) []byte {
	out := bytes.Clone(data)
	out[i] ^= 1 << bit
	return out
}

// header is a frame header claiming n payload bytes, with a valid checksum.
func header(n uint32) []byte {
	h := binary.LittleEndian.AppendUint32(nil, n)
	return binary.LittleEndian.AppendUint32(h, checksum(h))
}

// A long journal, its records decoded on every core, reads as it was
// written, and of two undecodable records the first is the corruption.
func TestALongJournalReadsInOrderAndNamesTheFirstBadRecord(t *testing.T) {
	data := append([]byte(nil), magic...)
	for i := range 1000 {
		payload, _ := json.Marshal(Record{Type: Intent, Time: t0, Seq: int64(i + 1), Step: i, Action: "create", Ref: web})
		data = appendFrame(data, payload)
	}
	recs, tail, err := Read(writeBytes(t, data))
	if err != nil || tail != nil || len(recs) != 1000 {
		t.Fatalf("Read = %d records, tail %v, %v; want 1000", len(recs), tail, err)
	}
	for i, r := range recs {
		if r.Step != i || r.Seq != int64(i+1) {
			t.Fatalf("record %d is step %d, seq %d; want step %d", i, r.Step, r.Seq, i)
		}
	}

	bad := append([]byte(nil), magic...)
	var first int64
	for i := range 1000 {
		payload, _ := json.Marshal(Record{Type: Intent, Time: t0, Seq: int64(i + 1), Step: i})
		if i == 400 || i == 900 {
			payload = []byte("{nope")
		}
		if i == 400 {
			first = int64(len(bad))
		}
		bad = appendFrame(bad, payload)
	}
	checkCorrupt(t, writeBytes(t, bad), first)
}
