package lock

import (
	"errors"
	"fmt"
	"os"
	"os/user"
	"time"
)

// Holder says who holds a release's lock. It is stored as JSON next to the
// file lock and on the Lease, so a refused caller can name it.
type Holder struct {
	User  string    `json:"user"`
	Host  string    `json:"host"`
	PID   int       `json:"pid"`
	Run   string    `json:"run,omitempty"`
	Since time.Time `json:"since"`
}

// CurrentHolder describes this process: the current user (os/user, else
// $USER), the hostname, the pid, the given run and the current time.
func CurrentHolder(run string) Holder {
	host, _ := os.Hostname()
	return Holder{User: currentUser(), Host: host, PID: os.Getpid(), Run: run, Since: time.Now()}
}

func currentUser() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	return os.Getenv("USER")
}

// String reads like "alice@build-3 pid 4242 (run 20261130-061500-ab12)";
// the run part is left out when Run is empty.
func (h Holder) String() string {
	s := fmt.Sprintf("%s@%s pid %d", h.User, h.Host, h.PID)
	if h.Run != "" {
		s += fmt.Sprintf(" (run %s)", h.Run)
	}
	return s
}

// identity is the compact form stored as a Lease's holderIdentity.
func (h Holder) identity() string {
	return fmt.Sprintf("%s@%s/%d/%s", h.User, h.Host, h.PID, h.Run)
}

// ErrHeld is matched (errors.Is) by every HeldError.
var ErrHeld = errors.New("release is locked")

// HeldError reports a lock held by someone else. Holder is the zero value
// when the holder could not be read.
type HeldError struct {
	Holder Holder
	Where  string // what is locked: "file /path/lock" or "lease ns/name"
}

// Error reads like "release is locked by alice@host pid 42 (run X) since
// 06:15:00 (file /path/lock)".
func (e *HeldError) Error() string {
	if e.Holder == (Holder{}) {
		return fmt.Sprintf("release is locked by an unknown holder (%s)", e.Where)
	}
	since := ""
	if !e.Holder.Since.IsZero() {
		since = " since " + e.Holder.Since.Local().Format(time.TimeOnly)
	}
	return fmt.Sprintf("release is locked by %s%s (%s)", e.Holder, since, e.Where)
}

// Is makes errors.Is(err, ErrHeld) true.
func (e *HeldError) Is(target error) bool { return target == ErrHeld }
