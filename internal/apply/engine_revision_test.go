package apply

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pynenc/piceli/internal/journal"
)

// TestRevisionIsPartOfTheRunsRecoverableState checks that recording a
// finished run's revision is something resume completes, once: the run is
// journaled finished only after its revision is stored, and a resume that
// redoes the end of a run writes no second revision.
func TestRevisionIsPartOfTheRunsRecoverableState(t *testing.T) {
	tests := []struct {
		name string
		// end leaves run-1 of creates(a) as the crash or fault the case
		// names, with every wave applied and ready.
		end func(t *testing.T, e *Engine, in Input)
		// wantFirst is the journal's last records before the resume, and
		// wantTorn whether a torn record follows them.
		wantFirst []string
		wantTorn  bool
	}{
		{
			name: "a revision that cannot be stored leaves the run resumable",
			end: func(t *testing.T, e *Engine, in Input) {
				blocker := filepath.Join(e.StateDir, "history")
				if err := os.WriteFile(blocker, nil, 0o600); err != nil { // no directory can be made there
					t.Fatal(err)
				}
				res, err := e.Apply(t.Context(), "run-1", in)
				if err == nil || res.Status != journal.StatusFailed || res.Revision != 0 {
					t.Fatalf("Apply() with an unwritable history = %+v, %v; want failed, no revision, an error", res, err)
				}
				os.Remove(blocker)
			},
			wantFirst: []string{"wave-ready 0", "run-failed"},
		},
		{
			name: "a crash after the revision, before run-finished, is completed without a second revision",
			end: func(t *testing.T, e *Engine, in Input) {
				finishRun(t, e, in)
				tearLastRecord(t, e.StateDir, "run-1", 0)
			},
			wantFirst: []string{"outcome 0 applied", "wave-ready 0"},
		},
		{
			name: "a torn run-finished record is completed without a second revision",
			end: func(t *testing.T, e *Engine, in Input) {
				finishRun(t, e, in)
				tearLastRecord(t, e.StateDir, "run-1", 10)
			},
			wantFirst: []string{"outcome 0 applied", "wave-ready 0"}, wantTorn: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newFakeCluster()
			e := newEngine(t, c, Options{})
			in := creates(t, "a")
			tt.end(t, e, in)
			recs, tail, err := journal.Read(JournalPath(e.StateDir, "run-1"))
			if err != nil {
				t.Fatal(err)
			}
			if got := story(recs[len(recs)-len(tt.wantFirst):]); !cmp.Equal(tt.wantFirst, got) || (tail != nil) != tt.wantTorn {
				t.Fatalf("journal before the resume ends %q (torn tail %v), want %q (torn: %v)", got, tail, tt.wantFirst, tt.wantTorn)
			}

			res, err := e.Resume(t.Context(), "run-1", in)
			if err != nil {
				t.Fatalf("Resume() = %v, want nil", err)
			}
			if diff := cmp.Diff(&Result{Run: "run-1", Status: journal.StatusFinished, Revision: 1}, res); diff != "" {
				t.Errorf("Resume() result (-want +got):\n%s", diff)
			}
			_, st := replayRun(t, e.StateDir, "run-1")
			if st.Status != journal.StatusFinished {
				t.Errorf("Replay() status = %s, want finished", st.Status)
			}
			revs := revisions(t, e.StateDir)
			if len(revs) != 1 || revs[0].Run != "run-1" || revs[0].Number != 1 {
				t.Errorf("history.List() = %d revisions %+v, want revision 1 of run-1 alone", len(revs), revs)
			}
			if n := writes(c.sent("patch", "a")); n != 1 {
				t.Errorf("%d writes of a sent, want 1: the resume only closes the run", n)
			}
		})
	}
}

// finishRun applies in as run-1 and wants it finished as revision 1.
func finishRun(t *testing.T, e *Engine, in Input) {
	t.Helper()
	res, err := e.Apply(t.Context(), "run-1", in)
	if err != nil || res.Revision != 1 {
		t.Fatalf("Apply() = %+v, %v; want finished as revision 1", res, err)
	}
}

// tearLastRecord cuts a run's journal, which ends with run-finished, at
// that record's frame plus keep bytes of it: keep 0 is a crash before the
// record was written, more a crash in the middle of writing it.
func tearLastRecord(t *testing.T, stateDir, run string, keep int) {
	t.Helper()
	path := JournalPath(stateDir, run)
	recs, _, err := journal.Read(path)
	if err != nil || len(recs) == 0 || recs[len(recs)-1].Type != journal.RunFinished {
		t.Fatalf("journal.Read(run %s) = %d records, %v; want it to end with run-finished", run, len(recs), err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Walk the frames (see journal/frame.go: an 8-byte magic, then per
	// record a 4-byte length, a 4-byte header checksum, the payload and a
	// 4-byte payload checksum) to the start of the last one.
	last := 8
	for off := last; off < len(data); off += 12 + int(binary.LittleEndian.Uint32(data[off:])) {
		last = off
	}
	if err := os.Truncate(path, int64(last+keep)); err != nil {
		t.Fatal(err)
	}
}
