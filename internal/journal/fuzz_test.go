package journal

import (
	"bytes"
	"testing"
)

// FuzzRead checks that parsing arbitrary bytes never panics, classifies
// every problem as exactly one of torn tail or corruption within the file,
// and that Replay of whatever parses never panics either.
func FuzzRead(f *testing.F) {
	var clean []byte
	for _, r := range numbered(sample()) {
		payload, err := marshal(r, t0)
		if err != nil {
			f.Fatal(err)
		}
		clean = appendFrame(clean, payload)
	}
	clean = append([]byte(magic), clean...)
	f.Add(clean)
	f.Add(clean[:len(clean)-3])
	f.Add([]byte{})
	f.Add([]byte(magic))
	f.Add([]byte("PICE"))
	f.Add(append(bytes.Clone(clean), make([]byte, 16)...))
	f.Add(append([]byte(magic), header(MaxPayload+1)...))
	f.Add(flipBit(clean, 12, 3))
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, tail, cerr := parse(data)
		switch {
		case tail != nil && cerr != nil:
			t.Fatalf("parse = torn %v and corrupt %v", tail, cerr)
		case tail != nil && tail.Offset+tail.Dropped != int64(len(data)):
			t.Fatalf("parse tail %v does not end at the file's end %d", tail, len(data))
		case cerr != nil && (cerr.Offset < 0 || cerr.Offset > int64(len(data))):
			t.Fatalf("parse corruption offset %d outside a %d-byte file", cerr.Offset, len(data))
		}
		Replay(recs)
	})
}
