package observe_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
	"github.com/pynenc/piceli/observe"
)

// A container log of a million lines, read through the API server, comes
// back as at most the lines asked for, never more than the byte cap, and
// ends with the log's last line.
func TestLogsRunCapsAMillionLines(t *testing.T) {
	const total = 1_000_000
	l := newLens(t, total)
	last := fmt.Sprintf("line %07d", total-1)
	for _, tc := range []struct {
		name         string
		lines, bytes int
		wantMax      int
	}{
		{name: "500 lines", lines: 500, wantMax: 500},
		{name: "more than the line cap", lines: 50_000, wantMax: observe.MaxTailLines},
		{name: "a byte cap of 4 KiB", lines: 5000, bytes: 4096, wantMax: 4096 / len(last+"\n")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			tail, err := observe.Logs(sandboxtest.Context(t, 2*time.Minute), l.cl, observe.LogsOptions{Namespace: l.ns, Target: "deployment/api", Lines: tc.lines, Bytes: tc.bytes})
			if err != nil {
				t.Fatal(err)
			}
			size := 0
			for _, line := range tail.Lines {
				size += len(line) + 1
			}
			limit := tc.bytes
			if limit == 0 {
				limit = observe.MaxTailBytes
			}
			t.Logf("%d lines, %d bytes in %s", len(tail.Lines), size, time.Since(start).Round(time.Millisecond))
			if len(tail.Lines) == 0 || len(tail.Lines) > tc.wantMax || size > limit {
				t.Fatalf("Logs = %d lines, %d bytes; want 1 to %d lines within %d bytes", len(tail.Lines), size, tc.wantMax, limit)
			}
			if got := tail.Lines[len(tail.Lines)-1]; got != last {
				t.Errorf("last line = %q, want the log's last, %q", got, last)
			}
		})
	}
}
