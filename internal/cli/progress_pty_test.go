package cli

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/creack/pty"
	"github.com/google/go-cmp/cmp"
)

// ptyWait bounds every wait on the terminal, so a test fails rather than
// hangs.
const ptyWait = 5 * time.Second

// fakeTerm is a pseudo-terminal: a renderer writes to tty, and a goroutine
// copies what the master side reads into out.
type fakeTerm struct {
	tty  *os.File
	mu   sync.Mutex
	out  bytes.Buffer
	more chan struct{} // a read arrived
	done chan struct{} // the reader ended
}

// openTerm opens a 200×40 pseudo-terminal, closed when the test ends.
func openTerm(t *testing.T) *fakeTerm {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatalf("pty.Open() = %v", err)
	}
	if err := pty.Setsize(tty, &pty.Winsize{Rows: 40, Cols: 200}); err != nil {
		t.Fatalf("pty.Setsize() = %v", err)
	}
	ft := &fakeTerm{tty: tty, more: make(chan struct{}, 1), done: make(chan struct{})}
	go ft.read(ptmx)
	t.Cleanup(func() {
		tty.Close()
		ptmx.Close()
		select {
		case <-ft.done:
		case <-time.After(ptyWait):
			t.Errorf("the pty reader did not end within %s", ptyWait)
		}
	})
	return ft
}

func (ft *fakeTerm) read(ptmx *os.File) {
	defer close(ft.done)
	buf := make([]byte, 4096)
	for {
		n, err := ptmx.Read(buf)
		ft.mu.Lock()
		ft.out.Write(buf[:n])
		ft.mu.Unlock()
		select {
		case ft.more <- struct{}{}:
		default:
		}
		if err != nil {
			return
		}
	}
}

// raw returns everything the terminal received so far.
func (ft *fakeTerm) raw() string {
	ft.mu.Lock()
	defer ft.mu.Unlock()
	return ft.out.String()
}

// waitFor waits until the text the terminal received, without ANSI
// sequences, matches re, and returns that text.
func (ft *fakeTerm) waitFor(t *testing.T, re *regexp.Regexp) string {
	t.Helper()
	deadline := time.After(ptyWait)
	for {
		text := stripANSI(ft.raw())
		if re.MatchString(text) {
			return text
		}
		select {
		case <-ft.more:
		case <-deadline:
			t.Fatalf("the terminal did not show %q within %s; it got:\n%s", re, ptyWait, text)
		}
	}
}

const endMark = "<<end of test output>>"

// drain writes a mark after what a renderer wrote and waits until it has
// been read, so raw holds all of the renderer's output.
func (ft *fakeTerm) drain(t *testing.T) {
	t.Helper()
	fmt.Fprintln(ft.tty, endMark)
	ft.waitFor(t, regexp.MustCompile(regexp.QuoteMeta(endMark)))
}

// finalScreen is the screen after everything the terminal received, the
// mark drained, without trailing blank rows.
func (ft *fakeTerm) finalScreen(t *testing.T) []string {
	t.Helper()
	ft.drain(t)
	rows := screen(ft.raw())
	for i, r := range rows {
		if strings.Contains(r, endMark) {
			rows = rows[:i]
			break
		}
	}
	for len(rows) > 0 && rows[len(rows)-1] == "" {
		rows = rows[:len(rows)-1]
	}
	return rows
}

var csi = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]`)

// stripANSI removes escape sequences and carriage returns.
func stripANSI(s string) string {
	return strings.ReplaceAll(csi.ReplaceAllString(s, ""), "\r", "")
}

// screen replays output on a grid the way a terminal does for what mpb
// writes: text, \r, \n, cursor up (ESC[nA) and erase below (ESC[J); other
// sequences (colours) are skipped.
func screen(out string) []string {
	var rows [][]rune
	row, col := 0, 0
	for len(out) > 0 {
		if loc := csi.FindStringIndex(out); loc != nil && loc[0] == 0 {
			seq := out[:loc[1]]
			out = out[loc[1]:]
			switch seq[len(seq)-1] {
			case 'A':
				n, err := strconv.Atoi(seq[2 : len(seq)-1])
				if err != nil {
					n = 1
				}
				row = max(row-n, 0)
			case 'J':
				if row < len(rows) {
					rows[row] = rows[row][:min(col, len(rows[row]))]
					rows = rows[:row+1]
				}
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(out)
		out = out[size:]
		switch r {
		case '\r':
			col = 0
		case '\n':
			row++
		default:
			for len(rows) <= row {
				rows = append(rows, nil)
			}
			for len(rows[row]) < col {
				rows[row] = append(rows[row], ' ')
			}
			if col < len(rows[row]) {
				rows[row][col] = r
			} else {
				rows[row] = append(rows[row], r)
			}
			col++
		}
	}
	lines := make([]string, len(rows))
	for i, r := range rows {
		lines[i] = strings.TrimRight(string(r), " ")
	}
	return lines
}

// TestProgressScreenReplay checks the replay the live tests rely on: a
// frame redrawn after cursor-up and erase replaces the old one.
func TestProgressScreenReplay(t *testing.T) {
	out := "above\r\nbar 1/2\r\nspin\r\n\x1b[2A\x1b[Jline\r\nbar 2/2\r\n"
	got := screen(out)
	want := []string{"above", "line", "bar 2/2"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("screen(%q) (-want +got):\n%s", out, diff)
	}
}
