package observe

import (
	"fmt"
	"io"
	"strings"
	"testing"
)

// lineSource streams n numbered lines without holding them in memory.
type lineSource struct {
	n, i int
	buf  []byte
}

func (s *lineSource) Read(p []byte) (int, error) {
	for len(s.buf) == 0 {
		if s.i == s.n {
			return 0, io.EOF
		}
		s.buf = fmt.Appendf(nil, "line %07d of a long log\n", s.i)
		s.i++
	}
	n := copy(p, s.buf)
	s.buf = s.buf[n:]
	return n, nil
}

func TestTailKeepsTheLastLinesWithinTheCaps(t *testing.T) {
	for _, tc := range []struct {
		name         string
		lines, bytes int
		wantLines    int
	}{
		{name: "the line cap binds", lines: 50, bytes: MaxTailBytes, wantLines: 50},
		{name: "the byte cap binds", lines: MaxTailLines, bytes: 1000, wantLines: 1000 / 27},
		{name: "the hard caps", lines: MaxTailLines, bytes: MaxTailBytes, wantLines: MaxTailLines},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, truncated, err := Tail(&lineSource{n: 1_000_000}, tc.lines, tc.bytes)
			if err != nil {
				t.Fatal(err)
			}
			size := 0
			for _, l := range got {
				size += len(l) + 1
			}
			if len(got) != tc.wantLines || size > tc.bytes || !truncated {
				t.Fatalf("Tail(1e6 lines, %d, %d) = %d lines, %d bytes, truncated %v; want %d lines within the byte cap, truncated", tc.lines, tc.bytes, len(got), size, truncated, tc.wantLines)
			}
			if last := got[len(got)-1]; last != "line 0999999 of a long log" {
				t.Errorf("last line = %q, want the log's last", last)
			}
		})
	}
}

func TestTailCutsAnOverlongLine(t *testing.T) {
	got, _, err := Tail(strings.NewReader(strings.Repeat("x", 5000)+"\n"), 10, 400)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || len(got[0]) != 399 {
		t.Fatalf("Tail(a 5000-byte line, 10, 400) = %d lines; want one cut to 399 bytes (400 with its end)", len(got))
	}
}
