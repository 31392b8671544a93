package plan

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// storeAt saves a sample plan for namespace ns and sets its file time.
func storeAt(t *testing.T, dir, ns string, at time.Time) string {
	t.Helper()
	if err := StoreKey(dir, testKey); err != nil {
		t.Fatal(err)
	}
	p := samplePlan()
	p.Target.Namespace = ns
	hash, err := Save(dir, p)
	if err != nil {
		t.Fatalf("Save() error = %v", err)
	}
	if err := os.Chtimes(file(dir, hash), at, at); err != nil {
		t.Fatal(err)
	}
	return hash
}

func TestListOrdersPlansByWhenTheyWereStored(t *testing.T) {
	dir := t.TempDir()
	if got, err := List(dir); got != nil || err != nil {
		t.Fatalf("List(no plans) = %v, %v; want none", got, err)
	}
	newest := storeAt(t, dir, "c", t0.Add(2*time.Hour))
	oldest := storeAt(t, dir, "a", t0)
	tieA, tieB := storeAt(t, dir, "b", t0.Add(time.Hour)), storeAt(t, dir, "d", t0.Add(time.Hour))
	if tieB < tieA {
		tieA, tieB = tieB, tieA
	}
	for _, junk := range []string{"notes.txt", "." + tieA[7:] + ".json.tmp-1", "abc.json"} {
		os.WriteFile(filepath.Join(Dir(dir), junk), nil, 0o600)
	}
	want := []Stored{{oldest, t0}, {tieA, t0.Add(time.Hour)}, {tieB, t0.Add(time.Hour)}, {newest, t0.Add(2 * time.Hour)}}
	got, err := List(dir)
	if err != nil {
		t.Fatalf("List() error = %v", err)
	}
	if diff := cmp.Diff(want, got, cmp.Comparer(time.Time.Equal)); diff != "" {
		t.Errorf("List() (-want +got):\n%s", diff)
	}
}

func TestRemove(t *testing.T) {
	dir := t.TempDir()
	gone, kept := storeAt(t, dir, "a", t0), storeAt(t, dir, "b", t0)
	if err := Remove(dir, gone); err != nil {
		t.Fatalf("Remove(%s) error = %v", ShortHash(gone), err)
	}
	if _, _, err := Load(dir, gone); !errors.Is(err, ErrUnknown) {
		t.Errorf("Load(removed plan) error = %v, want ErrUnknown", err)
	}
	if _, _, err := Load(dir, kept); err != nil {
		t.Errorf("Load(other plan) error = %v, want it still stored", err)
	}
	if err := Remove(dir, gone); err != nil {
		t.Errorf("Remove(already removed) error = %v, want nil", err)
	}
	for _, bad := range []string{ShortHash(kept), "sha256:../../keys/digest", ""} {
		if err := Remove(dir, bad); err == nil {
			t.Errorf("Remove(%q) = nil, want an error: not a full plan hash", bad)
		}
	}
}
