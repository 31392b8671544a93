package source

import (
	"bytes"
	"fmt"
	"io"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/storage/memory"
)

// unpackFactor bounds what a clone may unpack to in memory, as a
// multiple of the bound on the pack received.
const unpackFactor = 4

// boundedStorage is the in-memory store of a clone that refuses a pack
// over packLimit bytes as it arrives, over SSH as over HTTP, and objects
// over unpackFactor times that once unpacked.
type boundedStorage struct {
	*memory.Storage
	packLimit int64
	unpacked  int64
}

func newBoundedStorage(limit int64) *boundedStorage {
	return &boundedStorage{Storage: memory.NewStorage(), packLimit: limit}
}

// SetEncodedObject stores o within the bound on unpacked bytes.
func (s *boundedStorage) SetEncodedObject(o plumbing.EncodedObject) (plumbing.Hash, error) {
	s.unpacked += o.Size()
	if limit := unpackFactor * s.packLimit; s.unpacked > limit {
		return plumbing.ZeroHash, fmt.Errorf("the repository unpacks to more than %d bytes, the bound", limit)
	}
	return s.Storage.SetEncodedObject(o)
}

// PackfileWriter takes the pack as it is received: go-git writes it here
// rather than parsing the stream itself, so its size is bounded before
// anything is unpacked.
func (s *boundedStorage) PackfileWriter() (io.WriteCloser, error) {
	return &packWriter{s: s}, nil
}

type packWriter struct {
	s   *boundedStorage
	buf bytes.Buffer
}

func (w *packWriter) Write(p []byte) (int, error) {
	if int64(w.buf.Len())+int64(len(p)) > w.s.packLimit {
		return 0, fmt.Errorf("the repository sends more than %d bytes, the bound", w.s.packLimit)
	}
	return w.buf.Write(p)
}

// Close unpacks the pack received into the store.
func (w *packWriter) Close() error {
	p, err := packfile.NewParserWithStorage(packfile.NewScanner(bytes.NewReader(w.buf.Bytes())), w.s)
	if err != nil {
		return err
	}
	_, err = p.Parse()
	return err
}
