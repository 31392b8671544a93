package state

import (
	"errors"
	"testing"
)

// admit enforces the replay floor: a snapshot newer than every generation
// this machine has verified is taken, the one it agrees with is taken,
// anything older (or the same generation with other content) is refused
// unless acknowledged by exactly its generation.
func TestAdmit(t *testing.T) {
	c := &Cluster{Release: "shop", Namespace: "shop"}
	at7 := syncRecord{Generation: 7, Digest: "d7", Seen: 7}
	acked := syncRecord{Generation: 5, Digest: "d5", Seen: 7} // went back to 5 on request
	five, six := int64(5), int64(6)
	tests := []struct {
		name   string
		rec    syncRecord
		snap   Snapshot
		accept *int64
		ok     bool
	}{
		{name: "a newer snapshot is taken", rec: at7, snap: Snapshot{Generation: 8, Digest: "d8"}, ok: true},
		{name: "the snapshot the cache agrees with is taken", rec: at7, snap: Snapshot{Generation: 7, Digest: "d7"}, ok: true},
		{name: "an older snapshot is refused", rec: at7, snap: Snapshot{Generation: 6, Digest: "d6"}},
		{name: "the same generation with other content is refused", rec: at7, snap: Snapshot{Generation: 7, Digest: "forged"}},
		{name: "an older snapshot acknowledged by its generation is taken", rec: at7, snap: Snapshot{Generation: 6, Digest: "d6"}, accept: &six, ok: true},
		{name: "an acknowledgement of another generation does not do", rec: at7, snap: Snapshot{Generation: 6, Digest: "d6"}, accept: &five},
		{name: "after going back on request, the state gone back to is taken", rec: acked, snap: Snapshot{Generation: 5, Digest: "d5"}, ok: true},
		{name: "after going back on request, another old state is refused", rec: acked, snap: Snapshot{Generation: 6, Digest: "d6"}},
		{name: "after going back on request, the floor stays", rec: acked, snap: Snapshot{Generation: 7, Digest: "d7"}},
		{name: "after going back on request, a newer state is taken", rec: acked, snap: Snapshot{Generation: 8, Digest: "d8"}, accept: nil, ok: true},
		{name: "a record from before the floor existed counts its generation as seen", rec: syncRecord{Generation: 7, Digest: "d7"}, snap: Snapshot{Generation: 6, Digest: "d6"}},
		{name: "a fresh cache takes anything", rec: syncRecord{}, snap: Snapshot{Generation: 1, Digest: "d1"}, ok: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := c.admit(tt.rec, &tt.snap, tt.accept)
			if tt.ok != (err == nil) {
				t.Fatalf("admit(%+v, generation %d) = %v, want ok %v", tt.rec, tt.snap.Generation, err, tt.ok)
			}
			var older *OlderError
			if err != nil && (!errors.As(err, &older) || !errors.Is(err, ErrOlder) || older.Seen != 7) {
				t.Errorf("admit() = %v, want an *OlderError matching ErrOlder naming seen 7", err)
			}
		})
	}
}

// Pushes number past every generation this machine has seen, so no
// generation number is reused with other content after a restore.
func TestNextGeneration(t *testing.T) {
	restored := &Manifest{Current: &Snapshot{Generation: 5}}
	if got := nextGeneration(restored, syncRecord{Generation: 5, Seen: 9}); got != 10 {
		t.Errorf("nextGeneration(manifest 5, seen 9) = %d, want 10", got)
	}
	if got := nextGeneration(&Manifest{Current: &Snapshot{Generation: 12}}, syncRecord{Seen: 9}); got != 13 {
		t.Errorf("nextGeneration(manifest 12, seen 9) = %d, want 13", got)
	}
	if got := nextGeneration(nil, syncRecord{}); got != 1 {
		t.Errorf("nextGeneration(no manifest, nothing seen) = %d, want 1", got)
	}
}
