package compose

import (
	"os"
	"path/filepath"
	"slices"
	"time"
)

// A compiled composition is a whole linked program, tens of megabytes, and
// every edit of a composition (or the same composition in another folder)
// compiles a new one. Without a bound the cache fills the disk, so after
// each build the entries nobody used for a while go, then the least
// recently used ones while the cache is over its budget.
const (
	// CacheUnusedFor is how long an unused compiled composition is kept.
	CacheUnusedFor = 5 * 24 * time.Hour
	// CacheMaxBytes is the budget of the compositions cache.
	CacheMaxBytes = 1 << 30
	// abandonedBuild is the age after which a directory holding no
	// binary, only a build's leftovers, is taken for a crashed build.
	abandonedBuild = time.Hour
)

// cacheEntry is one key's directory in the cache.
type cacheEntry struct {
	dir   string
	used  time.Time // the binary's modification time, renewed on each hit
	size  int64
	built bool // a binary is there
}

// markUsed renews a cached binary's modification time, which the trim reads
// as its last use. A cache it may not write is left as it is.
func markUsed(bin string) {
	now := time.Now()
	_ = os.Chtimes(bin, now, now)
}

// trimCache removes, under root, the entries unused for CacheUnusedFor and
// then the least recently used ones until the rest fit in CacheMaxBytes.
// keep (the entry just built) is never removed. Only directories named as
// cache keys are touched; errors are ignored, as a cache's trim is
// best-effort and must never fail a render.
func trimCache(root, keep string, now time.Time) {
	entries := cacheEntries(root)
	// Newest first, so what is over the budget is at the end.
	slices.SortFunc(entries, func(a, b cacheEntry) int { return b.used.Compare(a.used) })
	var kept int64
	for _, e := range entries {
		if e.dir != keep && expired(e, now, kept+e.size) {
			if os.RemoveAll(e.dir) == nil {
				continue
			}
		}
		kept += e.size
	}
}

// expired tells whether e goes: unused too long, a crashed build's
// leftovers, or beyond the budget once the newer entries are counted.
func expired(e cacheEntry, now time.Time, keptWithIt int64) bool {
	age := now.Sub(e.used)
	switch {
	case !e.built:
		return age > abandonedBuild
	case age > CacheUnusedFor:
		return true
	default:
		return keptWithIt > CacheMaxBytes
	}
}

// cacheEntries lists the key directories under root with their size and
// last use. Anything else in root is not the cache's and is ignored.
func cacheEntries(root string) []cacheEntry {
	dirs, err := os.ReadDir(root)
	if err != nil {
		return nil
	}
	var out []cacheEntry
	for _, d := range dirs {
		if !d.IsDir() || !isCacheKey(d.Name()) {
			continue
		}
		if e, ok := readEntry(filepath.Join(root, d.Name())); ok {
			out = append(out, e)
		}
	}
	return out
}

// readEntry sizes one key directory. Its last use is its binary's
// modification time, or the directory's when no binary was stored.
func readEntry(dir string) (cacheEntry, bool) {
	info, err := os.Lstat(dir)
	if err != nil {
		return cacheEntry{}, false
	}
	e := cacheEntry{dir: dir, used: info.ModTime()}
	files, err := os.ReadDir(dir)
	if err != nil {
		return cacheEntry{}, false
	}
	for _, f := range files {
		fi, err := f.Info()
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		e.size += fi.Size()
		if filepath.Join(dir, f.Name()) == binaryPath(filepath.Dir(dir), filepath.Base(dir)) {
			e.built, e.used = true, fi.ModTime()
		}
	}
	return e, true
}

// isCacheKey tells whether name is a cache key: 64 lower-case hex digits.
func isCacheKey(name string) bool {
	if len(name) != 64 {
		return false
	}
	for _, c := range name {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
