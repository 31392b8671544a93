package cli

import (
	"encoding/json"
	"io"
	"sync"

	"github.com/pynenc/piceli/progress"
)

// jsonLines writes one JSON object per event, with "schema" set to
// progress.Schema and the event's fields beside it. It serialises writers
// and drops nothing: a run's end is its last event, as emitted.
func jsonLines(w io.Writer) func(progress.Event) {
	var mu sync.Mutex
	enc := json.NewEncoder(w)
	return func(e progress.Event) {
		mu.Lock()
		defer mu.Unlock()
		enc.Encode(progress.LineOf(e))
	}
}
