package history

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestAddIsIdempotentPerRun checks that adding the revision of a run that
// has one already writes nothing and answers that revision's number: a
// resume redoing the end of a run never records it twice.
func TestAddIsIdempotentPerRun(t *testing.T) {
	tests := []struct {
		name    string
		damage  func(dir string) // after revisions 1 and 2 are added
		again   func() Revision  // added once more
		wantN   int
		wantErr string // a substring; "" for none
	}{
		{
			name:  "a run's revision added again answers its number",
			again: func() Revision { r := revision(1, 1); r.Finished = r.Finished.Add(time.Hour); return r },
			wantN: 1,
		},
		{
			name:   "the run is found when the index lacks its entry (a crash between the file and the entry)",
			damage: func(dir string) { writeIndex(dir, readIndex(dir)[:1]) },
			again:  func() Revision { return revision(2, 1) },
			wantN:  2,
		},
		{
			name:   "the run is found when the index is gone",
			damage: func(dir string) { os.Remove(indexFile(dir)) },
			again:  func() Revision { return revision(2, 1) },
			wantN:  2,
		},
		{
			name:    "a run recorded with another plan is refused",
			again:   func() Revision { r := revision(1, 1); r.Plan = "sha256:other"; return r },
			wantN:   1,
			wantErr: "run 20260102-000001-abcdef is revision 1 already, of plan",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			addRevisions(t, dir, 2, 1)
			if tt.damage != nil {
				tt.damage(dir)
			}
			before := snapshot(t, dir)

			n, err := Add(dir, testKey, tt.again())
			if n != tt.wantN || (err == nil) != (tt.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("Add() = %d, %v; want %d and an error containing %q", n, err, tt.wantN, tt.wantErr)
			}
			if diff := cmp.Diff(before, snapshot(t, dir)); diff != "" {
				t.Errorf("history files after Add() (-before +after):\n%s", diff)
			}
		})
	}
}

// TestAddWithoutRunAlwaysAdds checks that revisions naming no run are
// never taken for one another.
func TestAddWithoutRunAlwaysAdds(t *testing.T) {
	dir := t.TempDir()
	for want := 1; want <= 2; want++ {
		if n, err := Add(dir, testKey, Revision{Plan: "sha256:a", Outcome: "finished"}); n != want || err != nil {
			t.Fatalf("Add(a revision without a run) = %d, %v; want %d", n, err, want)
		}
	}
}

// snapshot returns the revision files of dir by name, with their contents.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	ns, err := numbers(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, n := range ns {
		data, err := os.ReadFile(file(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		out[file(dir, n)] = string(data)
	}
	return out
}
