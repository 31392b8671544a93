package secret

import (
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// testVersion returns a version of secret "db" holding values.
func testVersion(n int, values map[string]string) *Version {
	v := &Version{Secret: "db", Number: n, Created: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC), values: map[string][]byte{}}
	for _, k := range slices.Sorted(maps.Keys(values)) {
		v.Keys = append(v.Keys, KeyVersion{Key: k, Fingerprint: `env ref="` + k + `"`})
		v.values[k] = []byte(values[k])
	}
	return v
}

func openStore(t *testing.T) *Store {
	t.Helper()
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatalf("Open() error = %v", err)
	}
	return s
}

func TestStoreRoundTrip(t *testing.T) {
	s := openStore(t)
	want := testVersion(1, map[string]string{"password": "hunter2", "blob": "\x00\xff"})
	if err := s.save(want); err != nil {
		t.Fatalf("save() error = %v", err)
	}
	got, err := s.Load("db", 1)
	if err != nil {
		t.Fatalf("Load(db, 1) error = %v", err)
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(Version{})); diff != "" {
		t.Errorf("Load(db, 1) (-want +got):\n%s", diff)
	}
	latest, err := s.Latest("db")
	if err != nil || latest.Number != 1 {
		t.Errorf("Latest(db) = %v, %v, want version 1", latest, err)
	}
}

func TestStoreModesAreOwnerOnly(t *testing.T) {
	state := t.TempDir()
	if err := os.Mkdir(filepath.Join(state, "secrets"), 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := Open(state)
	if err != nil {
		t.Fatalf("Open() error = %v", err)
	}
	if err := s.save(testVersion(1, map[string]string{"k": "v"})); err != nil {
		t.Fatalf("save() error = %v", err)
	}
	modes := map[string]os.FileMode{
		filepath.Join(state, "secrets"):                      0o700,
		filepath.Join(state, "secrets", "db"):                0o700,
		filepath.Join(state, "secrets", "db", "000001.json"): 0o600,
	}
	for p, want := range modes {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := st.Mode().Perm(); got != want {
			t.Errorf("mode of %s = %v, want %v", p, got, want)
		}
	}
}

func TestStoreRefusesToReplaceAVersion(t *testing.T) {
	s := openStore(t)
	if err := s.save(testVersion(1, map[string]string{"k": "a"})); err != nil {
		t.Fatal(err)
	}
	if err := s.save(testVersion(1, map[string]string{"k": "b"})); err == nil {
		t.Errorf("save() of an existing version = nil, want an error")
	}
}

func TestStoreWithoutVersions(t *testing.T) {
	s := openStore(t)
	if v, err := s.Latest("db"); v != nil || err != nil {
		t.Errorf("Latest(db) = %v, %v, want nil, nil", v, err)
	}
	if _, err := s.Load("db", 1); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Load(db, 1) error = %v, want fs.ErrNotExist", err)
	}
	if _, err := s.Versions("../escape"); !errors.Is(err, ErrSource) {
		t.Errorf("Versions(../escape) error = %v, want ErrSource", err)
	}
}

func TestStoreVersionsIgnoresOtherFiles(t *testing.T) {
	s := openStore(t)
	for _, n := range []int{2, 1, 10} {
		if err := s.save(testVersion(n, map[string]string{"k": "v"})); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{".000011.json.tmp-1", "notes.txt", "000000.json"} {
		os.WriteFile(filepath.Join(s.Dir(), "db", f), nil, 0o600)
	}
	got, err := s.Versions("db")
	if diff := cmp.Diff([]int{1, 2, 10}, got); diff != "" || err != nil {
		t.Errorf("Versions(db) = %v, %v (-want +got):\n%s", got, err, diff)
	}
}

func TestPrune(t *testing.T) {
	tests := []struct {
		name        string
		versions    int
		keep        int
		pinned      map[int]bool
		wantDeleted []int
		wantLeft    []int
	}{
		{
			name: "versions older than the newest keep are deleted", versions: 5, keep: 2,
			wantDeleted: []int{1, 2, 3}, wantLeft: []int{4, 5},
		},
		{
			name: "a pinned old version survives", versions: 5, keep: 2, pinned: map[int]bool{2: true},
			wantDeleted: []int{1, 3}, wantLeft: []int{2, 4, 5},
		},
		{
			name: "fewer versions than keep deletes nothing", versions: 3, keep: KeepVersions,
			wantLeft: []int{1, 2, 3},
		},
		{
			name: "keep zero still keeps the latest", versions: 3, keep: 0,
			wantDeleted: []int{1, 2}, wantLeft: []int{3},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := openStore(t)
			for n := 1; n <= tt.versions; n++ {
				if err := s.save(testVersion(n, map[string]string{"k": "v"})); err != nil {
					t.Fatal(err)
				}
			}
			deleted, err := s.Prune("db", tt.keep, tt.pinned)
			if err != nil {
				t.Fatalf("Prune() error = %v", err)
			}
			if diff := cmp.Diff(tt.wantDeleted, deleted); diff != "" {
				t.Errorf("Prune(db, %d, %v) deleted (-want +got):\n%s", tt.keep, tt.pinned, diff)
			}
			left, _ := s.Versions("db")
			if diff := cmp.Diff(tt.wantLeft, left); diff != "" {
				t.Errorf("Versions(db) after Prune (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadRefusesAFileOfAnotherVersion(t *testing.T) {
	s := openStore(t)
	if err := s.save(testVersion(1, map[string]string{"k": "v"})); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(s.Dir(), "db")
	if err := os.Rename(filepath.Join(dir, "000001.json"), filepath.Join(dir, "000002.json")); err != nil {
		t.Fatal(err)
	}
	_, err := s.Latest("db")
	if want := `load secret "db" version 2: file holds another secret or version`; err == nil || err.Error() != want {
		t.Errorf("Latest(db) error = %v, want %s", err, want)
	}
}
