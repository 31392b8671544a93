package lock

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/gofrs/flock"
)

// Probe reports whether the file lock of stateDir is held right now, and
// the holder its record names. It decides by the lock itself, not by the
// record: it takes a shared lock for a moment and lets it go, which only
// succeeds when nobody holds the lock (the kernel drops a killed holder's
// lock with its process). It creates and records nothing; a File called
// at that moment waits for it. A state directory or lock file that does not
// exist is not held. When the lock is not held, the Holder is the record
// the last holder left, if it was killed, else the zero Holder.
func Probe(stateDir string) (Holder, bool, error) {
	path := filepath.Join(stateDir, lockFile)
	holderPath := filepath.Join(stateDir, holderFile)
	fl := flock.New(path, flock.SetFlag(os.O_RDONLY))
	free, err := fl.TryRLock()
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Holder{}, false, nil
	case err != nil:
		return Holder{}, false, fmt.Errorf("probe lock %s: %w", path, err)
	case free:
		defer fl.Close() // the record is read under the shared lock, so no holder replaces it meanwhile
		return readHolder(holderPath), false, nil
	}
	return currentRecord(holderPath), true, nil
}
