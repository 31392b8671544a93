package compose

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeEntry stores a sparse "binary" of size bytes under root for the key
// made of c, last used at used, and returns its directory.
func fakeEntry(t *testing.T, root string, c byte, size int64, used time.Time) string {
	t.Helper()
	key := strings.Repeat(string(c), 64)
	bin := binaryPath(root, key)
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Chtimes(bin, used, used); err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(bin)
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

func TestTrimRemovesWhatNobodyUsedForDays(t *testing.T) {
	root, now := t.TempDir(), time.Now()
	old := fakeEntry(t, root, 'a', 1<<20, now.Add(-CacheUnusedFor-time.Hour))
	recent := fakeEntry(t, root, 'b', 1<<20, now.Add(-24*time.Hour))
	trimCache(root, "", now)
	if exists(old) {
		t.Errorf("an entry unused for more than %v is still there", CacheUnusedFor)
	}
	if !exists(recent) {
		t.Error("an entry used yesterday was removed")
	}
}

func TestTrimKeepsTheNewestWithinTheBudget(t *testing.T) {
	root, now := t.TempDir(), time.Now()
	// Sparse files: their sizes count, their blocks are never written.
	size := int64(CacheMaxBytes) * 2 / 5
	newest := fakeEntry(t, root, 'c', size, now.Add(-time.Minute))
	second := fakeEntry(t, root, 'd', size, now.Add(-time.Hour))
	third := fakeEntry(t, root, 'e', size, now.Add(-2*time.Hour))
	trimCache(root, "", now)
	if !exists(newest) || !exists(second) {
		t.Error("an entry that fits in the budget was removed")
	}
	if exists(third) {
		t.Error("the least recently used entry beyond the budget is still there")
	}
}

func TestTrimNeverRemovesTheEntryJustBuilt(t *testing.T) {
	root, now := t.TempDir(), time.Now()
	// An entry alone over the budget, and stamped long ago: a clock that
	// was wrong when it was built must not make a render fail.
	built := fakeEntry(t, root, 'f', CacheMaxBytes+1, now.Add(-CacheUnusedFor-time.Hour))
	trimCache(root, built, now)
	if !exists(built) {
		t.Error("the entry just built was removed")
	}
}

func TestTrimTouchesOnlyCacheKeys(t *testing.T) {
	root, now := t.TempDir(), time.Now()
	long := now.Add(-CacheUnusedFor - time.Hour)
	foreign := filepath.Join(root, "my-notes")
	if err := os.Mkdir(foreign, 0o755); err != nil {
		t.Fatal(err)
	}
	upper := filepath.Join(root, strings.Repeat("A", 64))
	file := filepath.Join(root, strings.Repeat("a", 64))
	if err := os.Mkdir(upper, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{foreign, upper, file} {
		if err := os.Chtimes(p, long, long); err != nil {
			t.Fatal(err)
		}
	}
	trimCache(root, "", now)
	for _, p := range []string{foreign, upper, file} {
		if !exists(p) {
			t.Errorf("%s, which is not a cache entry, was removed", filepath.Base(p))
		}
	}
}

func TestTrimRemovesACrashedBuildOnlyWhenItIsOld(t *testing.T) {
	root, now := t.TempDir(), time.Now()
	leftover := func(c byte, age time.Duration) string {
		dir := filepath.Join(root, strings.Repeat(string(c), 64))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, ".build-1"), []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
		at := now.Add(-age)
		if err := os.Chtimes(dir, at, at); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	crashed := leftover('1', 2*abandonedBuild)
	building := leftover('2', time.Minute)
	trimCache(root, "", now)
	if exists(crashed) {
		t.Error("a build's leftovers older than an hour are still there")
	}
	if !exists(building) {
		t.Error("a build in progress (a minute old) was removed")
	}
}

func TestAHitMarksTheBinaryUsed(t *testing.T) {
	root, now := t.TempDir(), time.Now()
	dir := fakeEntry(t, root, '9', 1, now.Add(-CacheUnusedFor-time.Hour))
	markUsed(binaryPath(root, filepath.Base(dir)))
	trimCache(root, "", time.Now())
	if !exists(dir) {
		t.Error("an entry used just now was removed as unused")
	}
}
