package journal

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestRoundTrip(t *testing.T) {
	tests := []struct {
		name   string
		append func(t *testing.T, path string)
	}{
		{"records appended one by one come back numbered, with NoStep on run records", func(t *testing.T, path string) {
			w := create(t, path, Options{})
			for _, r := range sample() {
				mustAppend(t, w, r)
			}
		}},
		{"records appended in one group come back the same", func(t *testing.T, path string) {
			mustAppend(t, create(t, path, Options{}), sample()...)
		}},
		{"appending after a reopen continues the sequence", func(t *testing.T, path string) {
			mustAppend(t, create(t, path, Options{}), sample()[:1]...)
			w, recs, tail, err := OpenAppend(path, Options{})
			if err != nil || tail != nil || len(recs) != 1 {
				t.Fatalf("OpenAppend = %d records, %v, %v; want 1 record, clean", len(recs), tail, err)
			}
			defer w.Close()
			mustAppend(t, w, sample()[1:]...)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "run.journal")
			tt.append(t, path)
			got, tail, err := Read(path)
			if err != nil || tail != nil {
				t.Fatalf("Read = %v, %v; want clean", tail, err)
			}
			if diff := cmp.Diff(numbered(sample()), got); diff != "" {
				t.Errorf("Read(%s) mismatch (-want +got):\n%s", path, diff)
			}
		})
	}
}

func TestAppendSetsTimeAndLeavesArgumentAlone(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.journal")
	w := create(t, path, Options{})
	recs := []Record{{Type: RunStarted, Run: "run-1"}}
	before := time.Now()
	mustAppend(t, w, recs...)
	if recs[0].Seq != 0 || !recs[0].Time.IsZero() || recs[0].Step != 0 {
		t.Errorf("Append modified its argument: %+v", recs[0])
	}
	got, _, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Time.Before(before.Add(-time.Second)) || got[0].Time.Location() != time.UTC {
		t.Errorf("Read()[0].Time = %v, want about now in UTC", got[0].Time)
	}
}

func TestAppendGroupCommitsWithOneSync(t *testing.T) {
	var before, after int
	path := filepath.Join(t.TempDir(), "run.journal")
	w := create(t, path, Options{
		BeforeSync: func() error { before++; return nil },
		AfterSync:  func() error { after++; return nil },
	})
	recs := []Record{{Type: RunStarted, Time: t0}}
	for i := range 5 {
		recs = append(recs, Record{Type: Intent, Time: t0, Step: i, Action: "create"})
	}
	mustAppend(t, w, recs...)
	if before != 1 || after != 1 {
		t.Errorf("Append(%d records) synced %d/%d times (before/after hooks), want 1/1", len(recs), before, after)
	}
	got, _, err := Read(path)
	if err != nil || len(got) != len(recs) {
		t.Errorf("Read = %d records, %v; want %d", len(got), err, len(recs))
	}
}

func TestAppendConcurrently(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.journal")
	w := create(t, path, Options{})
	mustAppend(t, w, Record{Type: RunStarted, Time: t0})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 10 {
				r := Record{Type: Intent, Time: t0, Step: g*10 + i}
				if err := w.Append(r, Record{Type: Outcome, Time: t0, Step: g*10 + i, Result: ResultApplied}); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	got, tail, err := Read(path)
	if err != nil || tail != nil {
		t.Fatalf("Read = %v, %v; want clean", tail, err)
	}
	s, err := Replay(got)
	if err != nil {
		t.Fatalf("Replay(concurrent appends) = %v", err)
	}
	if n := len(s.Pending(80)); n != 0 || len(s.Steps) != 80 {
		t.Errorf("Replay(concurrent appends) = %d steps, %d pending; want 80, 0", len(s.Steps), n)
	}
}

func TestAppendRefuses(t *testing.T) {
	tests := []struct {
		name   string
		opts   Options
		recs   []Record
		want   string
		broken bool // later appends refused too
	}{
		{name: "an unknown record type, writing nothing", recs: []Record{{Type: "bogus"}}, want: `unknown record type "bogus"`},
		{name: "a record over MaxPayload, writing nothing", recs: []Record{{Type: RunFailed, Error: strings.Repeat("x", MaxPayload)}}, want: "exceeds the 1048576-byte record limit"},
		{name: "everything after a failure before the sync", opts: Options{BeforeSync: func() error { return errors.New("killed") }},
			recs: []Record{{Type: RunStarted}}, want: "killed", broken: true},
		{name: "everything after a failure after the sync", opts: Options{AfterSync: func() error { return errors.New("killed") }},
			recs: []Record{{Type: RunStarted}}, want: "killed", broken: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "run.journal")
			w := create(t, path, tt.opts)
			err := w.Append(tt.recs...)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), path) {
				t.Fatalf("Append(%.40v) = %v, want an error naming %s and %q", tt.recs, err, path, tt.want)
			}
			if !tt.broken && size(t, path) != int64(len(magic)) {
				t.Errorf("file is %d bytes after a refused Append, want only the magic", size(t, path))
			}
			err = w.Append(Record{Type: RunStarted})
			if got := err != nil; got != tt.broken {
				t.Errorf("next Append = %v, want refused %v", err, tt.broken)
			}
		})
	}
}

func TestAppendAfterClose(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.journal")
	w, err := Create(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close = %v, want nil", err)
	}
	if err := w.Append(Record{Type: RunStarted}); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("Append after Close = %v, want fs.ErrClosed", err)
	}
}

func TestCreateRefusesAnExistingFile(t *testing.T) {
	path, _ := writeJournal(t, sample())
	before := readBytes(t, path)
	if _, err := Create(path, Options{}); !errors.Is(err, fs.ErrExist) {
		t.Errorf("Create(existing) = %v, want fs.ErrExist", err)
	}
	if diff := cmp.Diff(before, readBytes(t, path)); diff != "" {
		t.Errorf("Create(existing) modified the file")
	}
}

func TestCreateIsPrivateAndStartsWithMagic(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.journal")
	create(t, path, Options{})
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", st.Mode().Perm())
	}
	if got := string(readBytes(t, path)); got != magic {
		t.Errorf("new journal = %q, want %q", got, magic)
	}
}

func TestOpenAppendMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "none.journal")
	if _, _, _, err := OpenAppend(path, Options{}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("OpenAppend(missing) = %v, want fs.ErrNotExist", err)
	}
}

func create(t *testing.T, path string, opts Options) *Writer {
	t.Helper()
	w, err := Create(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

func mustAppend(t *testing.T, w *Writer, recs ...Record) {
	t.Helper()
	if err := w.Append(recs...); err != nil {
		t.Fatal(err)
	}
}

// Appends that arrive while an fsync is under way are written at once and
// made durable together by the next fsync, each Append returning once its
// records are durable.
func TestConcurrentAppendsShareTheNextCommit(t *testing.T) {
	const followers = 10
	path := filepath.Join(t.TempDir(), "run.journal")
	release, held := make(chan struct{}), make(chan struct{})
	var syncs atomic.Int32
	w := create(t, path, Options{BeforeSync: func() error {
		if syncs.Add(1) == 1 {
			close(held)
			<-release // the first commit waits while the others arrive
		}
		return nil
	}})
	errs := make(chan error, followers+1)
	go func() { errs <- w.Append(Record{Type: RunStarted, Time: t0}) }()
	<-held
	for i := range followers {
		go func() { errs <- w.Append(Record{Type: Outcome, Time: t0, Step: i, Result: ResultApplied}) }()
	}
	waitFor(t, func() bool { return written(w) == followers+1 })
	close(release)
	for range followers + 1 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if n := syncs.Load(); n != 2 {
		t.Errorf("%d appends fsynced %d times, want 2 (the first, then the %d that arrived meanwhile)", followers+1, n, followers)
	}
	got, tail, err := Read(path)
	if err != nil || tail != nil || len(got) != followers+1 {
		t.Fatalf("Read = %d records, tail %v, %v; want %d, clean", len(got), tail, err, followers+1)
	}
	for i, r := range got {
		if r.Seq != int64(i+1) {
			t.Errorf("record %d has Seq %d, want %d: the file is out of order", i, r.Seq, i+1)
		}
	}
}

// An fsync that fails fails every Append waiting on it.
func TestAFailedCommitFailsEveryAppendInIt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.journal")
	release, held := make(chan struct{}), make(chan struct{})
	var syncs atomic.Int32
	w := create(t, path, Options{BeforeSync: func() error {
		switch syncs.Add(1) {
		case 1:
			close(held)
			<-release
			return nil
		default:
			return errors.New("killed")
		}
	}})
	first := make(chan error, 1)
	go func() { first <- w.Append(Record{Type: RunStarted, Time: t0}) }()
	<-held
	errs := make(chan error, 3)
	for i := range 3 {
		go func() { errs <- w.Append(Record{Type: Outcome, Time: t0, Step: i, Result: ResultApplied}) }()
	}
	waitFor(t, func() bool { return written(w) == 4 })
	close(release)
	if err := <-first; err != nil {
		t.Errorf("the first commit: %v", err)
	}
	for range 3 {
		if err := <-errs; err == nil || !strings.Contains(err.Error(), "killed") {
			t.Errorf("an Append of the failed commit = %v, want the commit's error", err)
		}
	}
	if err := w.Append(Record{Type: RunFailed}); err == nil {
		t.Error("Append after a failed commit: no error, want the Writer broken")
	}
}

// waitFor polls cond until it holds, failing the test after 10 seconds.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	timeout := time.After(10 * time.Second)
	for !cond() {
		select {
		case <-tick.C:
		case <-timeout:
			t.Fatal("condition not reached in 10s")
		}
	}
}

// written counts the records w has written to its file.
func written(w *Writer) int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.next - 1
}

// Staged records are in the file at once, in Seq order with appended ones,
// and durable with the next Append, Flush or Close: one fsync for all.
func TestStagedRecordsAreWrittenAtOnceAndSyncedLater(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.journal")
	var syncs atomic.Int32
	w := create(t, path, Options{BeforeSync: func() error { syncs.Add(1); return nil }})
	mustAppend(t, w, Record{Type: RunStarted, Time: t0})
	for i := range 3 {
		if err := w.Stage(Record{Type: Outcome, Time: t0, Step: i, Result: ResultApplied}); err != nil {
			t.Fatal(err)
		}
	}
	if got, _, err := Read(path); err != nil || len(got) != 4 {
		t.Fatalf("Read after staging = %d records, %v; want 4: staged records are written at once", len(got), err)
	}
	if n := syncs.Load(); n != 1 {
		t.Errorf("staging 3 records fsynced: %d syncs, want only the Append's 1", n)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if n := syncs.Load(); n != 2 {
		t.Errorf("two Flushes of 3 staged records: %d syncs in all, want 2 (nothing left for the second)", n)
	}
	if err := w.Stage(Record{Type: WaveReady, Time: t0}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if n := syncs.Load(); n != 3 {
		t.Errorf("Close with a staged record: %d syncs in all, want 3", n)
	}
	got, tail, err := Read(path)
	if err != nil || tail != nil || len(got) != 5 {
		t.Fatalf("Read = %d records, tail %v, %v; want 5, clean", len(got), tail, err)
	}
	for i, r := range got {
		if r.Seq != int64(i+1) {
			t.Errorf("record %d has Seq %d, want %d", i, r.Seq, i+1)
		}
	}
}
