package lock

import (
	"errors"
	"os"
	"syscall"
)

// alive reports whether a process with pid exists on this machine. A pid
// that cannot be signalled for lack of permission is alive; pid <= 0 is not a
// process.
func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// deadHere reports whether h names a process on this machine that no longer
// exists. A holder on another machine is never known dead.
func deadHere(h Holder) bool {
	host, err := os.Hostname()
	return err == nil && h.Host == host && h.PID > 0 && !alive(h.PID)
}
