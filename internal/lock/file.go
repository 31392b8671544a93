package lock

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"

	"github.com/pynenc/piceli/internal/atomicfile"
	"github.com/pynenc/piceli/internal/statedir"
)

// Names of the files File keeps in a state directory.
const (
	lockFile   = statedir.Lock
	holderFile = statedir.LockOwner
)

// FileLock is an exclusive flock on a state directory's lock file, held
// until Unlock or until the process ends, whichever comes first.
type FileLock struct {
	fl         *flock.Flock
	holderPath string
}

// File takes an exclusive, non-blocking flock on stateDir/lock (0600; the
// directory is created 0700) and records h in stateDir/lock.holder. When
// another open file holds the lock, in this process or another, it returns a
// *HeldError naming the holder recorded there. The kernel drops the lock when
// the process dies, so a killed holder never needs cleaning up. File does not
// wait for the lock.
func File(stateDir string, h Holder) (*FileLock, error) {
	if err := atomicfile.MkdirPrivate(stateDir); err != nil {
		return nil, fmt.Errorf("lock %s: %w", stateDir, err)
	}
	path := filepath.Join(stateDir, lockFile)
	fl := flock.New(path, flock.SetPermissions(0o600))
	l := &FileLock{fl: fl, holderPath: filepath.Join(stateDir, holderFile)}
	holder, ok, err := tryLock(fl, l.holderPath)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if !ok {
		return nil, &HeldError{Holder: holder, Where: "file " + path}
	}
	if err := l.record(h); err != nil {
		fl.Close()
		return nil, err
	}
	return l, nil
}

// record makes the lock file owner-only and writes h as the holder.
func (l *FileLock) record(h Holder) error {
	if err := os.Chmod(l.fl.Path(), 0o600); err != nil {
		return fmt.Errorf("lock %s: %w", l.fl.Path(), err)
	}
	if h.Since.IsZero() {
		h.Since = time.Now()
	}
	data, err := json.Marshal(h)
	if err != nil {
		return fmt.Errorf("record lock holder: %w", err)
	}
	if err := atomicfile.Write(l.holderPath, data, 0o600); err != nil {
		return fmt.Errorf("record lock holder: %w", err)
	}
	return nil
}

// tryLock takes fl without waiting for a holder, or returns the holder
// recorded for whoever has it. A lock held without the record of a live
// holder is tried again for a moment: the holder may not have recorded
// itself yet, or the lock is only held by a Probe.
func tryLock(fl *flock.Flock, holderPath string) (Holder, bool, error) {
	tick := time.NewTicker(recordPoll)
	defer tick.Stop()
	var h Holder
	for range recordRetries {
		if ok, err := fl.TryLock(); ok || err != nil {
			return Holder{}, ok, err
		}
		if h = readHolder(holderPath); recorded(h) {
			return h, false, nil
		}
		<-tick.C
	}
	return h, false, nil
}

// currentRecord reads the holder file of a held lock, again for a moment
// while it does not name a live holder (one that just took the lock has
// not replaced the record of the last yet).
func currentRecord(path string) Holder {
	tick := time.NewTicker(recordPoll)
	defer tick.Stop()
	h := readHolder(path)
	for range recordRetries {
		if recorded(h) {
			return h
		}
		<-tick.C
		h = readHolder(path)
	}
	return h
}

// recorded reports whether h may be the live holder of a lock: it names
// someone, and not a process on this machine that no longer exists.
func recorded(h Holder) bool { return h != (Holder{}) && !deadHere(h) }

// How long tryLock and currentRecord wait for a live holder's record.
const (
	recordPoll    = 20 * time.Millisecond
	recordRetries = 10
)

// readHolder reads a holder file; a missing or unreadable one gives the zero
// Holder (the error then says the holder is unknown).
func readHolder(path string) Holder {
	var h Holder
	data, err := statedir.ReadFile(path)
	if err != nil {
		return Holder{}
	}
	if json.Unmarshal(data, &h) != nil {
		return Holder{}
	}
	return h
}

// Unlock removes the holder record and releases the lock. It is safe to call
// more than once. The lock file itself stays: removing it would let two
// processes lock two different files of the same name.
func (l *FileLock) Unlock() error {
	if !l.fl.Locked() {
		return nil
	}
	if err := os.Remove(l.holderPath); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("unlock %s: %w", l.fl.Path(), err)
	}
	if err := l.fl.Close(); err != nil {
		return fmt.Errorf("unlock %s: %w", l.fl.Path(), err)
	}
	return nil
}
