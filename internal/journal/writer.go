package journal

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/pynenc/piceli/internal/atomicfile"
)

// Options holds a Writer's hooks. The zero value means no hooks.
type Options struct {
	// BeforeSync, when set, runs after a commit's frames are written and
	// before they are fsynced. An error fails every Append of the commit as
	// if the process had died there; failpoints and fault tests use it.
	BeforeSync func() error
	// AfterSync, when set, runs after the fsync returns. An error fails
	// every Append of the commit although its records are durable.
	AfterSync func() error
}

// Writer appends records to one journal file. It is safe for concurrent
// use, and commits concurrent appends together (see Append). It does not
// stop a second Writer, in this or another process, from opening the same
// file: the caller holds the release lock for that.
type Writer struct {
	mu     sync.Mutex
	idle   sync.Cond // on mu: a commit ended
	path   string
	f      *os.File // nil once closed
	opts   Options
	next   int64 // Seq of the next record
	broken error // why the file is in an unknown state; Append refuses from then on
	// committing is set while one Append writes and fsyncs; the appends
	// made meanwhile gather in open, which that Append commits next.
	committing bool
	open       *batch
}

// batch is the frames of appends that one write and one fsync commit.
type batch struct {
	frames  []byte
	records int
	done    chan struct{} // closed once committed or failed, err set
	err     error
}

func newWriter(path string, f *os.File, opts Options, next int64) *Writer {
	w := &Writer{path: path, f: f, opts: opts, next: next}
	w.idle.L = &w.mu
	return w
}

// Create makes a new, empty journal at path: it fails if path exists, and
// returns only once the magic header and the directory entry are durable.
// The file is owner-only (0600).
func Create(path string, opts Options) (*Writer, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("create journal %s: %w", path, err)
	}
	if err := initialize(f, path); err != nil {
		f.Close()
		os.Remove(path)
		return nil, fmt.Errorf("create journal %s: %w", path, err)
	}
	return newWriter(path, f, opts, 1), nil
}

// initialize writes the magic header and makes it and the file's directory
// entry durable.
func initialize(f *os.File, path string) error {
	if _, err := f.WriteString(magic); err != nil {
		return err
	}
	if err := syncFile(f); err != nil {
		return err
	}
	if !fsyncs {
		return nil
	}
	return atomicfile.SyncDir(filepath.Dir(path))
}

// OpenAppend opens an existing journal to append to it, returning its
// records. A torn tail is truncated away and the truncation fsynced before
// OpenAppend returns; the returned *Tail (nil when the file was clean) says
// what was dropped so the caller can log it. A corrupt journal is a
// *CorruptError and the file is left untouched.
func OpenAppend(path string, opts Options) (*Writer, []Record, *Tail, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("open journal %s: %w", path, err)
	}
	recs, tail, err := load(f, path)
	if err != nil {
		f.Close()
		return nil, nil, nil, err
	}
	return newWriter(path, f, opts, int64(len(recs))+1), recs, tail, nil
}

// load reads the open journal f and repairs a torn tail.
func load(f *os.File, path string) ([]Record, *Tail, error) {
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, nil, fmt.Errorf("read journal %s: %w", path, err)
	}
	recs, tail, cerr := parse(data)
	if cerr != nil {
		cerr.Path = path
		return nil, nil, cerr
	}
	if tail != nil {
		if err := repair(f, tail); err != nil {
			return nil, nil, fmt.Errorf("repair journal %s: %w", path, err)
		}
	}
	return recs, tail, nil
}

// repair truncates f to the end of its last good frame, restores the magic
// header if even that was torn, and fsyncs.
func repair(f *os.File, t *Tail) error {
	if err := f.Truncate(t.Offset); err != nil {
		return err
	}
	if t.Offset == 0 {
		if _, err := f.WriteString(magic); err != nil {
			return err
		}
	}
	return f.Sync()
}

// Append assigns recs consecutive Seq numbers and makes them durable: they
// are written in one write and fsynced before it returns nil. Appends made
// at once by several goroutines are group-committed: while one commit's
// write and fsync are under way, the appends that arrive gather and the
// next commit makes all of them durable with one write and one fsync, in
// Seq order. Each record's Step is set to NoStep unless its Type is about
// a step, and a zero Time to the current UTC time; recs itself is not
// modified. A record that cannot be encoded or exceeds MaxPayload fails the
// call before anything is written. Any failure after a commit's write
// began leaves the file in an unknown state: every Append of that commit
// fails, the Writer refuses every later Append, and the journal must be
// reopened with OpenAppend. Appending no records does nothing.
func (w *Writer) Append(recs ...Record) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.usable(); err != nil {
		return err
	}
	buf, err := encode(recs, w.next, time.Now().UTC())
	if err != nil || len(buf) == 0 {
		return w.fail(err)
	}
	w.next += int64(len(recs))
	b := w.join(buf, len(recs))
	if w.committing {
		w.mu.Unlock()
		<-b.done // the Append committing now commits b next
		w.mu.Lock()
		return b.err
	}
	w.commitOpen()
	return b.err
}

// join adds frames to the open batch, starting one if none is open.
func (w *Writer) join(frames []byte, records int) *batch {
	if w.open == nil {
		w.open = &batch{done: make(chan struct{})}
	}
	w.open.frames = append(w.open.frames, frames...)
	w.open.records += records
	return w.open
}

// commitOpen commits open batches, one write and one fsync each, until
// none is left. It is called with w.mu held and releases it while it
// writes and fsyncs.
func (w *Writer) commitOpen() {
	w.committing = true
	for w.open != nil {
		b := w.open
		w.open = nil
		err := w.usable()
		if err == nil {
			w.mu.Unlock()
			err = w.commit(b.frames)
			w.mu.Lock()
			if err != nil {
				w.broken = err
			}
			err = w.fail(err)
		}
		b.err = err
		close(b.done)
	}
	w.committing = false
	w.idle.Broadcast()
}

// usable refuses appends to a closed or broken Writer.
func (w *Writer) usable() error {
	if w.f == nil {
		return w.fail(fs.ErrClosed)
	}
	if w.broken != nil {
		return w.fail(fmt.Errorf("an earlier append failed, reopen the journal: %w", w.broken))
	}
	return nil
}

// fail wraps err (if any) with the journal's path.
func (w *Writer) fail(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("append to journal %s: %w", w.path, err)
}

// commit writes buf in one call and makes it durable, running the hooks.
func (w *Writer) commit(buf []byte) error {
	if _, err := w.f.Write(buf); err != nil {
		return err
	}
	if err := run(w.opts.BeforeSync); err != nil {
		return err
	}
	if err := syncFile(w.f); err != nil {
		return err
	}
	return run(w.opts.AfterSync)
}

func run(hook func() error) error {
	if hook == nil {
		return nil
	}
	return hook()
}

// encode frames recs, numbering them from seq.
func encode(recs []Record, seq int64, now time.Time) ([]byte, error) {
	var buf []byte
	for i, r := range recs {
		r.Seq = seq + int64(i)
		payload, err := marshal(r, now)
		if err != nil {
			return nil, fmt.Errorf("record %d (%s): %w", r.Seq, r.Type, err)
		}
		buf = appendFrame(buf, payload)
	}
	return buf, nil
}

// marshal normalizes r and returns its payload.
func marshal(r Record, now time.Time) ([]byte, error) {
	if !r.Type.known() {
		return nil, fmt.Errorf("unknown record type %q", r.Type)
	}
	if !r.Type.stepScoped() {
		r.Step = NoStep
	}
	if r.Time.IsZero() {
		r.Time = now
	}
	payload, err := json.Marshal(r)
	if err == nil && len(payload) > MaxPayload {
		err = fmt.Errorf("%d bytes exceeds the %d-byte record limit", len(payload), MaxPayload)
	}
	return payload, err
}

// Close closes the file once no commit is under way. Every successful
// Append is already durable, so Close does not fsync. Closing twice is a
// no-op.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for w.committing {
		w.idle.Wait()
	}
	if w.f == nil {
		return nil
	}
	err := w.f.Close()
	w.f = nil
	if err != nil {
		return fmt.Errorf("close journal %s: %w", w.path, err)
	}
	return nil
}

// Durable reports whether an Append is durable when it returns (fsync). It
// is false only in a binary built with the piceli_nofsync tag, which the
// benchmark builds to measure the journal's cost; nothing else can turn
// fsync off.
func Durable() bool { return fsyncs }

// syncFile fsyncs f, unless this is the benchmark's no-fsync build.
func syncFile(f *os.File) error {
	if !fsyncs {
		return nil
	}
	return f.Sync()
}
