package journal

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/pynenc/piceli/internal/object"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

var web = &object.Ref{Group: "apps", Kind: "Deployment", Namespace: "shop", Name: "web"}

// sample is a three-record run: started, one intent, its outcome.
func sample() []Record {
	return []Record{
		{Type: RunStarted, Time: t0, Run: "run-1", Plan: "sha256:abc", Holder: "ana@box 42"},
		{Type: Intent, Time: t0.Add(time.Second), Step: 0, Action: "create", Ref: web},
		{Type: Outcome, Time: t0.Add(2 * time.Second), Step: 0, Result: ResultApplied, UID: "u-1", ResourceVersion: "7"},
	}
}

// numbered returns recs as Append stores them: Seq from 1, NoStep on run
// records.
func numbered(recs []Record) []Record {
	out := make([]Record, len(recs))
	for i, r := range recs {
		r.Seq = int64(i) + 1
		if !r.Type.stepScoped() {
			r.Step = NoStep
		}
		out[i] = r
	}
	return out
}

// writeJournal creates a journal holding recs, one Append each, and
// returns its path and the file size after each record.
func writeJournal(t *testing.T, recs []Record) (string, []int64) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "run.journal")
	w, err := Create(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var ends []int64
	for _, r := range recs {
		if err := w.Append(r); err != nil {
			t.Fatal(err)
		}
		ends = append(ends, size(t, path))
	}
	return path, ends
}

func size(t *testing.T, path string) int64 {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

func readBytes(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// writeBytes writes data to a fresh journal path.
func writeBytes(t *testing.T, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "run.journal")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
