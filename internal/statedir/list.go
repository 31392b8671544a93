package statedir

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
)

// MaxEntries bounds how many entries List reads from one directory, so
// that a directory someone filled cannot make a listing unbounded.
const MaxEntries = 100_000

// maxEntries is MaxEntries, lowered by tests.
var maxEntries = MaxEntries

// readBatch is how many entries List reads at a time.
var readBatch = 1024

// Entries says which entries of a directory List returns.
type Entries int

// The kinds of entry List returns.
const (
	Dirs  Entries = iota + 1 // directories: runs, secrets, deploys
	Files                    // regular files: plans, revisions, versions
)

// List returns the names of the directories (want Dirs) or regular files
// (want Files) in dir that keep accepts, sorted. A nil keep accepts every
// name that does not start with a dot. A symlink is never listed, whatever
// it points to, and neither is any other kind of entry (a FIFO, a socket):
// a state directory's records are written by Piceli, never linked in. A
// missing dir lists nothing. A dir of more than MaxEntries entries is an
// error naming it. List reads no entry's content.
func List(dir string, want Entries, keep func(name string) bool) ([]string, error) {
	if keep == nil {
		keep = func(name string) bool { return !strings.HasPrefix(name, ".") }
	}
	f, err := os.Open(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var names []string
	for seen := 0; ; {
		batch, err := f.ReadDir(readBatch)
		seen += len(batch)
		if seen > maxEntries {
			return nil, fmt.Errorf("%s holds more than %d entries", dir, maxEntries)
		}
		for _, e := range batch {
			if wanted(e, want) && keep(e.Name()) {
				names = append(names, e.Name())
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read directory %s: %w", dir, err)
		}
	}
	slices.Sort(names)
	return names, nil
}

// wanted reports whether e is of the kind want, never following a symlink.
func wanted(e fs.DirEntry, want Entries) bool {
	switch want {
	case Dirs:
		return e.Type().IsDir()
	case Files:
		return e.Type().IsRegular()
	}
	return false
}
