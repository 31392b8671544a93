package retention_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pynenc/piceli/internal/history"
	"github.com/pynenc/piceli/internal/retention"
	"github.com/pynenc/piceli/internal/secret"
)

func TestPruneSecrets(t *testing.T) {
	tests := []struct {
		name      string
		versions  int              // of the secret db
		keep      int              // PruneSecrets's argument
		revisions []map[string]int // the secret versions of each revision
		removed   []int
	}{
		{name: "the newest secret.KeepVersions versions of each secret stay, older ones go",
			versions: secret.KeepVersions + 2, removed: []int{1, 2}},
		{name: "a version a revision uses stays however old",
			versions: secret.KeepVersions + 2, revisions: []map[string]int{{"db": 1}, {"db": 12}}, removed: []int{2}},
		{name: "a smaller keep keeps fewer, and still every version a revision uses",
			versions: 6, keep: 3, revisions: []map[string]int{{"db": 2}}, removed: []int{1, 3}},
		{name: "a secret with no more versions than keep loses none",
			versions: secret.KeepVersions},
		{name: "a version number another secret's revision uses pins nothing of this one",
			versions: secret.KeepVersions + 1, revisions: []map[string]int{{"api": 1}}, removed: []int{1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &release{t: t, dir: t.TempDir()}
			r.secretVersions("db", tt.versions)
			for _, s := range tt.revisions {
				if _, err := history.Add(r.dir, []byte("retention test key"), history.Revision{Plan: "sha256:abc", Outcome: "finished", Secrets: s}); err != nil {
					t.Fatal(err)
				}
			}
			var kept, removed []string
			gone := map[int]bool{}
			for _, n := range tt.removed {
				gone[n] = true
				removed = append(removed, fmt.Sprintf("db/%d", n))
			}
			for n := 1; n <= tt.versions; n++ {
				if !gone[n] {
					kept = append(kept, fmt.Sprintf("db/%d", n))
				}
			}
			got, err := retention.PruneSecrets(r.dir, tt.keep)
			if err != nil {
				t.Fatalf("PruneSecrets(%d) error = %v", tt.keep, err)
			}
			if diff := cmp.Diff(tally(kept, removed), got); diff != "" {
				t.Errorf("PruneSecrets(%d) (-want +got):\n%s", tt.keep, diff)
			}
			left, _ := secret.View(r.dir).Versions("db")
			if len(left) != len(kept) {
				t.Errorf("Versions(db) after PruneSecrets = %v, want %v", left, kept)
			}
		})
	}
}
