package importer

import (
	"errors"

	"github.com/pynenc/piceli/refusal"
)

// refuse marks err as bad input refused before anything was written (a
// file that cannot be read or decoded, an object that does not fit its
// type, an output directory that exists): refusal.Is reports it, as it
// does an unusable target (kube.TargetError).
func refuse(err error) error { return refusal.New(err) }

// ErrOutputExists is an output directory that holds files already; an
// import replaces the files it writes there only with Options.Force.
var ErrOutputExists = errors.New("an import replaces the files it writes there only when forced")

func refusef(format string, args ...any) error { return refusal.Errorf(format, args...) }
