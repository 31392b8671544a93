package journal_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/pynenc/piceli/internal/journal"
)

func ExampleReplay() {
	dir, _ := os.MkdirTemp("", "journal")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "run.journal")
	w, err := journal.Create(path, journal.Options{})
	if err != nil {
		log.Fatal(err)
	}
	// The process dies after the intent for step 1 became durable.
	err = w.Append(
		journal.Record{Type: journal.RunStarted, Run: "run-1", Plan: "sha256:abc"},
		journal.Record{Type: journal.Intent, Step: 0, Action: "create"},
		journal.Record{Type: journal.Outcome, Step: 0, Result: journal.ResultApplied, UID: "u-1"},
		journal.Record{Type: journal.Intent, Step: 1, Action: "update"},
	)
	if err != nil {
		log.Fatal(err)
	}
	w.Close()

	recs, _, err := journal.Read(path)
	if err != nil {
		log.Fatal(err)
	}
	s, err := journal.Replay(recs)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(s.Status, s.InDoubt(), s.Pending(3), s.Done(0))
	// Output: running [1] [2] true
}
