package access

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"syscall"
)

// Loopback is the only address access listens on.
const Loopback = "127.0.0.1"

// Ephemeral as a requested local port asks for any free loopback port, as
// checks do; the local port actually bound is reported.
const Ephemeral = -1

// The rule for local ports when none is asked for, so that the same
// release forwards to the same local ports run after run:
//
//   - a service port of 1024 or more is forwarded from the same local port
//     when that port is free;
//   - otherwise (a privileged port, or a taken one) from the port plus
//     FallbackOffset (80 → 10080, 8080 → 18080), or minus it when that
//     would pass 65535;
//   - when that is taken too, nothing is forwarded: a *PortTakenError names
//     both ports, and --port NAME=LOCAL picks another.
const FallbackOffset = 10000

// Candidates returns the local ports tried, in order, for a service port
// forwarded without an explicit local port.
func Candidates(port int32) []int {
	p := int(port)
	fallback := p + FallbackOffset
	if fallback > 65535 {
		fallback = p - FallbackOffset
	}
	if p >= 1024 {
		return []int{p, fallback}
	}
	return []int{fallback}
}

// PortTakenError is a local port (or every candidate for one) that another
// process, or another forward of this session, already listens on.
type PortTakenError struct {
	Component string // the Service the forward is for
	Port      int32  // its service port
	Tried     []int  // the local ports tried, in order
	Explicit  bool   // the local port was asked for
}

func (e *PortTakenError) Error() string {
	if e.Explicit {
		return fmt.Sprintf("local port %d for %s (service port %d) is already in use on %s; free it or ask for another local port",
			e.Tried[0], e.Component, e.Port, Loopback)
	}
	return fmt.Sprintf("local ports %s for %s (service port %d) are already in use on %s; ask for another local port",
		joinPorts(e.Tried), e.Component, e.Port, Loopback)
}

func joinPorts(ps []int) string {
	s := ""
	for i, p := range ps {
		if i > 0 {
			s += " and "
		}
		s += strconv.Itoa(p)
	}
	return s
}

// listen binds the local end of a forward on address (empty: Loopback),
// which must be 127.0.0.1 or ::1: local when it is positive, any free port
// for Ephemeral, else the first free candidate.
func listen(address, component string, port int32, local int) (net.Listener, error) {
	if address == "" {
		address = Loopback
	}
	if err := CheckLoopback(address); err != nil {
		return nil, fmt.Errorf("forward %s: %w", component, err)
	}
	tried := Candidates(port)
	switch {
	case local == Ephemeral:
		tried = []int{0}
	case local > 0:
		tried = []int{local}
	}
	for _, p := range tried {
		ln, err := net.Listen("tcp", net.JoinHostPort(address, strconv.Itoa(p)))
		if err == nil {
			return ln, nil
		}
		if !errors.Is(err, syscall.EADDRINUSE) {
			return nil, fmt.Errorf("listen on %s for %s: %w", net.JoinHostPort(address, strconv.Itoa(p)), component, err)
		}
	}
	return nil, &PortTakenError{Component: component, Port: port, Tried: tried, Explicit: local > 0}
}

// CheckLoopback accepts only the loopback addresses a forward or the
// operations lens may bind: 127.0.0.1 and ::1, written as such.
func CheckLoopback(address string) error {
	if address != "127.0.0.1" && address != "::1" {
		return fmt.Errorf("bind address %q refused: only 127.0.0.1 or ::1 (loopback) may be bound", address)
	}
	return nil
}
