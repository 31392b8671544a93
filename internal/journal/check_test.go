package journal

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func checkRecord(typ Type, c Check) Record { return Record{Type: typ, Check: &c} }

func TestReplayChecks(t *testing.T) {
	pass := Check{Name: "home", Kind: "http", Passed: true, Attempts: 1, DurationMS: 12}
	fail := Check{Name: "api", Kind: "http", Error: "status 500, want 200", Attempts: 3}
	tests := []struct {
		name string
		recs []Record
		want State
	}{
		{"finished checks are kept in order",
			[]Record{started(), checkRecord(CheckStarted, Check{Name: "home", Kind: "http"}), checkRecord(CheckFinished, pass),
				checkRecord(CheckStarted, Check{Name: "api", Kind: "http"}), checkRecord(CheckFinished, fail), {Type: RunFailed, Error: "check api failed"}},
			state(nil, func(s *State) { s.Checks, s.Status, s.Error = []Check{pass, fail}, StatusFailed, "check api failed" })},
		{"a resumed run forgets the checks of its earlier session",
			[]Record{started(), checkRecord(CheckStarted, Check{Name: "api"}), checkRecord(CheckFinished, fail), {Type: RunFailed, Error: "x"}, resumed()},
			state(nil, func(s *State) { s.Holder = "bo@box 77" })},
		{"a check started and not finished leaves no result",
			[]Record{started(), checkRecord(CheckStarted, Check{Name: "home"})},
			state(nil, nil)},
		{"skipped checks are said so",
			[]Record{started(), {Type: ChecksSkipped, Error: "--skip-checks"}, runRecord(RunFinished)},
			state(nil, func(s *State) { s.ChecksSkipped, s.Status = true, StatusFinished })},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs := make([]Record, len(tt.recs))
			for i, r := range tt.recs {
				r.Seq = int64(i) + 1
				recs[i] = r
			}
			got, err := Replay(recs)
			if err != nil {
				t.Fatalf("Replay() error = %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Replay() (-want +got):\n%s", diff)
			}
		})
	}
}
