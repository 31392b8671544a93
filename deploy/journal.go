package deploy

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/pynenc/piceli/internal/atomicfile"
	"github.com/pynenc/piceli/internal/journal"
)

// journalHeader starts every deploy journal; the frames after it are
// those of the engine's journal (package journal), one Record each.
const journalHeader = "PICELID1"

// journalFile is the name of a deploy's journal in its directory.
const journalFile = "journal"

// writer appends records to one deploy's journal, each durable (written
// and fsynced) before Append returns. It is safe for concurrent use.
type writer struct {
	mu   sync.Mutex
	f    *os.File
	path string
	next int64
}

// createJournal makes a new journal at path, durable with its directory
// entry before it returns.
func createJournal(path string) (*writer, error) {
	if err := atomicfile.MkdirPrivate(filepath.Dir(path)); err != nil {
		return nil, fmt.Errorf("create deploy journal: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("create deploy journal: %w", err)
	}
	if _, err := f.WriteString(journalHeader); err == nil {
		err = f.Sync()
	}
	if err == nil {
		err = atomicfile.SyncDir(filepath.Dir(path))
	}
	if err != nil {
		f.Close()
		os.Remove(path)
		return nil, fmt.Errorf("create deploy journal %s: %w", path, err)
	}
	return &writer{f: f, path: path, next: 1}, nil
}

// openJournal opens an existing journal to append to it and returns its
// records; a torn tail (an append whose fsync never returned) is cut off
// and the cut made durable first.
func openJournal(path string) (*writer, []Record, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("open deploy journal: %w", err)
	}
	recs, tail, err := decode(f, path)
	if err == nil && tail != nil {
		err = repair(f, tail)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return &writer{f: f, path: path, next: int64(len(recs)) + 1}, recs, nil
}

// readJournal returns the records of the journal at path without changing
// it; a torn tail is left out.
func readJournal(path string) ([]Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read deploy journal: %w", err)
	}
	defer f.Close()
	recs, _, err := decode(f, path)
	return recs, err
}

func decode(f *os.File, path string) ([]Record, *journal.Tail, error) {
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, nil, fmt.Errorf("read deploy journal %s: %w", path, err)
	}
	payloads, tail, cerr := journal.SplitFrames(data, journalHeader)
	if cerr != nil {
		cerr.Path = path
		return nil, nil, cerr
	}
	recs := make([]Record, len(payloads))
	for i, p := range payloads {
		if err := json.Unmarshal(p, &recs[i]); err != nil {
			return nil, nil, fmt.Errorf("deploy journal %s: record %d is not a deploy record: %w", path, i+1, err)
		}
	}
	return recs, tail, nil
}

// repair truncates f at the end of its last good record, restoring the
// header when even that was torn, and fsyncs.
func repair(f *os.File, t *journal.Tail) error {
	if err := f.Truncate(t.Offset); err != nil {
		return fmt.Errorf("repair deploy journal: %w", err)
	}
	if t.Offset == 0 {
		if _, err := f.WriteString(journalHeader); err != nil {
			return fmt.Errorf("repair deploy journal: %w", err)
		}
	}
	return f.Sync()
}

// append numbers, times, writes and fsyncs r.
func (w *writer) append(r Record) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return fmt.Errorf("deploy journal %s is closed", w.path)
	}
	r.Seq = w.next
	if r.Time.IsZero() {
		r.Time = time.Now().UTC()
	}
	payload, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if len(payload) > journal.MaxPayload {
		return fmt.Errorf("deploy journal record %s of %d bytes is over the limit", r.Type, len(payload))
	}
	if _, err := w.f.Write(journal.AppendFrame(nil, payload)); err != nil {
		return fmt.Errorf("append to deploy journal %s: %w", w.path, err)
	}
	if err := w.f.Sync(); err != nil {
		return fmt.Errorf("sync deploy journal %s: %w", w.path, err)
	}
	w.next++
	return nil
}

func (w *writer) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f != nil {
		w.f.Close()
		w.f = nil
	}
}
