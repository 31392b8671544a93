package progress

import "sync"

// Serial returns a handler that passes each event to h one at a time, in
// the order the calls take a lock, so h needs no locking of its own; nil
// for a nil h. The packages that report events (release, deploy) call
// every handler they are given through it.
func Serial(h func(Event)) func(Event) {
	if h == nil {
		return nil
	}
	var mu sync.Mutex
	return func(e Event) {
		mu.Lock()
		defer mu.Unlock()
		h(e)
	}
}
