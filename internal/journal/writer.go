package journal

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
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
// use: records are written to the file at once, in Seq order, and the
// fsyncs that make them durable are shared (see Append). It does not stop a
// second Writer, in this or another process, from opening the same file:
// the caller holds the release lock for that.
type Writer struct {
	mu      sync.Mutex
	synced  sync.Cond // on mu: a sync ended
	path    string
	f       *os.File // nil once closed
	opts    Options
	next    int64 // Seq of the next record
	durable int64 // Seq of the last record an fsync has covered
	syncing bool  // an fsync is under way, outside mu
	broken  error // why the file is in an unknown state; Append refuses from then on
}

func newWriter(path string, f *os.File, opts Options, next int64) *Writer {
	w := &Writer{path: path, f: f, opts: opts, next: next, durable: next - 1}
	w.synced.L = &w.mu
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
	defer counted(time.Now())
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

// Append assigns recs consecutive Seq numbers, writes all their frames in
// one write and returns once they are durable. Appends from several
// goroutines share fsyncs (group commit): while one fsync is under way,
// the records written meanwhile wait for the next, which covers all of
// them. Each record's Step is set to NoStep unless its Type is about a
// step, and a zero Time to the current UTC time; recs itself is not
// modified. A record that cannot be encoded or exceeds MaxPayload fails the
// call before anything is written. Any failure after the write began
// leaves the file in an unknown state: every Append waiting on that write
// or fsync fails, the Writer refuses every later Append, and the journal
// must be reopened with OpenAppend. Appending no records does nothing.
func (w *Writer) Append(recs ...Record) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	last, err := w.write(recs)
	if err != nil || last == 0 {
		return err
	}
	return w.syncThrough(last)
}

// Stage is Append without waiting for durability: the records are written
// to the file (a process killed afterwards leaves them there), and the
// next Append, Flush or Close fsyncs them. Use it for records whose loss
// to a crash of the machine resume tolerates, such as the outcome of a
// write: its step is then in doubt, and resume settles it by reading the
// cluster.
func (w *Writer) Stage(recs ...Record) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, err := w.write(recs)
	return err
}

// Flush returns once every record written so far is durable.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.usable(); err != nil {
		return err
	}
	return w.syncThrough(w.next - 1)
}

// write encodes recs, numbered from w.next, and writes them in one call;
// it returns the Seq of the last one (0 for none). w.mu is held.
func (w *Writer) write(recs []Record) (int64, error) {
	if err := w.usable(); err != nil {
		return 0, err
	}
	buf, err := encode(recs, w.next, time.Now().UTC())
	if err != nil || len(buf) == 0 {
		return 0, w.fail(err)
	}
	if _, err := w.f.Write(buf); err != nil {
		w.broken = err
		return 0, w.fail(err)
	}
	w.next += int64(len(recs))
	return w.next - 1, nil
}

// syncThrough returns once the record numbered seq is durable: it fsyncs
// every record written so far, or waits for an fsync under way and then,
// if that one began too early to cover seq, for the next. w.mu is held,
// and released during the fsync.
func (w *Writer) syncThrough(seq int64) error {
	for w.durable < seq {
		if err := w.usable(); err != nil {
			return err
		}
		if w.syncing {
			w.synced.Wait()
			continue
		}
		w.syncing = true
		covers := w.next - 1
		w.mu.Unlock()
		err := w.sync()
		w.mu.Lock()
		w.syncing = false
		w.synced.Broadcast()
		if err != nil {
			w.broken = err
			return w.fail(err)
		}
		w.durable = covers
	}
	return nil
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

// commits counts this process's fsyncs of journals and the time they
// took, for Stats.
var commits struct {
	n     atomic.Int64
	nanos atomic.Int64
}

// Stats returns how many commits the journals of this process made (an
// fsync each, the creation of a journal counted as one) and the time they
// took in all. They run one at a time per journal, so that time bounds
// what waiting for durability adds to a run; the benchmark reports it.
func Stats() (n int64, spent time.Duration) {
	return commits.n.Load(), time.Duration(commits.nanos.Load())
}

// counted adds a commit that began at start to Stats.
func counted(start time.Time) {
	commits.n.Add(1)
	commits.nanos.Add(int64(time.Since(start)))
}

// sync makes what was written durable, running the hooks.
func (w *Writer) sync() error {
	defer counted(time.Now())
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

// Close makes staged records durable (unless an append failed) and closes
// the file. Closing twice is a no-op.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for w.syncing {
		w.synced.Wait()
	}
	if w.f == nil {
		return nil
	}
	var ferr error
	if w.broken == nil {
		ferr = w.syncThrough(w.next - 1)
	}
	err := w.f.Close()
	w.f = nil
	if err != nil {
		return errors.Join(ferr, fmt.Errorf("close journal %s: %w", w.path, err))
	}
	return ferr
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
