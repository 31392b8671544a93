package access

import "net/netip"

// EventKind says what a forward did. Its values are stable: they are
// printed as JSON.
type EventKind string

// The kinds of event.
const (
	// Forwarding: a port is forwarded for the first time (Local, Pod).
	Forwarding EventKind = "forwarding"
	// Reconnected: the forward moved to another pod (Pod, Previous, Reason).
	Reconnected EventKind = "reconnected"
	// Waiting: the forward has no pod to go to (Reason); said once per
	// reason.
	Waiting EventKind = "waiting"
	// ConnectionError: one local connection failed on the pod side
	// (Port, Pod, Reason), such as nothing listening on the port.
	ConnectionError EventKind = "connection-error"
)

// Event is one thing a session's forwards did.
type Event struct {
	Kind      EventKind
	Namespace string
	Service   string
	Port      int32
	PortName  string
	Local     netip.AddrPort
	Pod       string
	Previous  string // the pod a reconnect left
	Reason    string
}
