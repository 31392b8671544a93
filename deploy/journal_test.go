package deploy

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A deploy's journal survives a crash: a torn last record is cut off when
// the journal is opened again, and a flipped bit before it is an error.
func TestJournalRepairsTornTailAndRefusesCorruption(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d1", journalFile)
	w, err := createJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	recs := []Record{{Type: RecordStarted, ID: "d1"}, {Type: RecordStageStarted, Stage: StageBuild, Inputs: "sha256:aa"},
		{Type: RecordStageFinished, Stage: StageBuild, Inputs: "sha256:aa", Outcome: OutcomeDone}}
	for _, r := range recs {
		if err := w.append(r); err != nil {
			t.Fatal(err)
		}
	}
	w.close()
	whole, _ := os.ReadFile(path)
	for cut := len(whole) - 1; cut > len(whole)-20; cut-- {
		os.WriteFile(path, whole[:cut], 0o600)
		w, got, err := openJournal(path)
		if err != nil {
			t.Fatalf("openJournal(cut at %d): %v", cut, err)
		}
		w.close()
		if len(got) != 2 {
			t.Fatalf("openJournal(cut at %d) = %d records, want the 2 before the torn one", cut, len(got))
		}
	}
	flipped := append([]byte(nil), whole...)
	flipped[len(journalHeader)+10] ^= 0x40
	os.WriteFile(path, flipped, 0o600)
	if _, _, err := openJournal(path); err == nil {
		t.Errorf("openJournal of a journal with a flipped bit in its first record succeeded")
	}
}

func TestReplayFoldsStagesAndResumes(t *testing.T) {
	recs := []Record{
		{Type: RecordStarted, ID: "d1", Release: "r"},
		{Type: RecordStageStarted, Stage: StageBuild, Inputs: "sha256:aa"},
		{Type: RecordStageFinished, Stage: StageBuild, Inputs: "sha256:aa", Outcome: OutcomeDone, Outputs: &Outputs{Images: []Image{{Name: "web", Reference: "x@sha256:1"}}}},
		{Type: RecordStageStarted, Stage: StageDeliver, Inputs: "sha256:bb"},
		{Type: RecordResumed},
		{Type: RecordStageStarted, Stage: StageBuild, Inputs: "sha256:aa"},
		{Type: RecordStageFinished, Stage: StageBuild, Inputs: "sha256:aa", Outcome: OutcomeSkipped, Reason: "unchanged"},
	}
	st, err := Replay(recs)
	if err != nil {
		t.Fatal(err)
	}
	got := []string{}
	for _, s := range st.Stages {
		got = append(got, string(s.Stage)+" "+s.Status)
	}
	if diff := cmp.Diff([]string{"build skipped", "deliver started"}, got); diff != "" {
		t.Errorf("Replay() stages mismatch (-want +got):\n%s", diff)
	}
	if b, _ := st.Stage(StageBuild); b.Attempts != 2 {
		t.Errorf("build attempts = %d, want 2", b.Attempts)
	}
	if _, ok := st.ended(StageDeliver, "sha256:bb"); ok {
		t.Errorf("a deliver stage that only started counts as ended")
	}
	if st.Status != StatusRunning || st.Resumes != 1 {
		t.Errorf("Replay() status %s, resumes %d; want running, 1", st.Status, st.Resumes)
	}
	if _, err := Replay([]Record{{Type: RecordStarted}, {Type: RecordStageFinished, Stage: StagePlan}}); err == nil {
		t.Errorf("Replay() of a stage that finished without starting succeeded")
	}
}
