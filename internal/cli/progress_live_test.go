package cli

import (
	"cmp"
	"fmt"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/pynenc/piceli/progress"
)

// startLive starts a live display on a fresh pseudo-terminal that draws a
// frame only when the test calls the returned draw. A test that fails
// before closing the display has it closed, within ptyWait, at cleanup.
func startLive(t *testing.T) (*fakeTerm, *liveDisplay, func()) {
	t.Helper()
	ft := openTerm(t)
	refresh := make(chan any)
	l := newLive(ft.tty, liveOptions{Refresh: refresh})
	t.Cleanup(func() {
		if !returnsWithin(l.close, ptyWait) {
			t.Errorf("the display's close did not return within %s", ptyWait)
		}
	})
	draw := func() {
		t.Helper()
		select {
		case refresh <- struct{}{}:
		case <-time.After(ptyWait):
			t.Fatalf("the display took no refresh within %s", ptyWait)
		}
	}
	return ft, l, draw
}

// stopWithin calls stop, a display's close, and fails the test if it has
// not returned within limit.
func stopWithin(t *testing.T, stop func(), limit time.Duration) {
	t.Helper()
	if !returnsWithin(stop, limit) {
		t.Fatalf("the display's close did not return within %s", limit)
	}
}

// returnsWithin reports whether fn returned within limit. When it did not,
// fn is left running: the test is failing anyway, and it must not hang.
func returnsWithin(fn func(), limit time.Duration) bool {
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
		return true
	case <-time.After(limit):
		return false
	}
}

// spinnerRow matches the spinner's row while a run goes on.
var spinnerRow = regexp.MustCompile(`[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] \S`)

func TestProgressLiveShowsWaveBarsAndWaitingCounts(t *testing.T) {
	ft, l, draw := startLive(t)
	evs := compensatedRun()
	w := indexOf(evs, progress.Waiting)
	feed(l.emit, evs[:w+1])
	draw()
	ft.waitFor(t, regexp.MustCompile(`wave 1/3: config .*\] 2/2 steps, ready`))
	ft.waitFor(t, regexp.MustCompile(`wave 2/3: apps .*\] 3/100 steps`))
	ft.waitFor(t, regexp.MustCompile(`[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] `+regexp.QuoteMeta("waiting for 62 of 100 Deployments: d-00039, d-00099, d-00100, … (+59)")))
	feed(l.emit, evs[w+1:])
	stopWithin(t, l.close, ptyWait)
}

func TestProgressLiveFinalScreen(t *testing.T) {
	tests := []struct {
		name string
		evs  []progress.Event
		end  string
		rows []string // patterns the final screen's rows match, in order
	}{
		{
			name: "a compensated run keeps its failure and undos above the bars",
			evs:  compensatedRun(),
			end:  "run r-1 compensated",
			rows: []string{
				`^run r-1: plan 5e1f0c2d9a7b`,
				`^  journal: repaired a torn last record`,
				`^  settled ConfigMap/shop/settings: applied$`,
				`^  no wait Secret/shop/db \(annotated piceli.dev/wait: "false"\)$`,
				`^  failed  create Ingress/shop/web: `,
				`^  undo Deployment/shop/d-00100: applied$`,
				`^  undo Secret/shop/db: applied$`,
				`^wave 1/3: config .* 2/2 steps, ready$`,
				`^wave 2/3: apps .* 100/100 steps, ready$`,
				`^wave 3/3: routes .* 0/1 steps, 1 failed$`,
			},
		},
		{
			name: "a finished run says its revision below its bar",
			evs:  finishedRun(),
			end:  "run r-2 finished: revision 7",
			rows: []string{`^run r-2: plan`, `^wave 1/1: apps .* 2/2 steps, ready$`},
		},
		{
			name: "a run failing in wave 2 of 5 shows two bars, the second stopped",
			evs:  failedEarly(),
			end:  "run r-3 failed",
			rows: []string{
				`^  failed  create ConfigMap/shop/b: `,
				`^wave 1/5: namespaces .* 1/1 steps, ready$`,
				`^wave 2/5: config .* 1/3 steps, 1 failed$`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ft, l, draw := startLive(t)
			run, end := splitEnd(tt.evs)
			feed(l.emit, run)
			draw()
			ft.waitFor(t, spinnerRow) // a frame the last one must replace
			feed(l.emit, end)
			stopWithin(t, l.close, ptyWait)
			rows := ft.finalScreen(t)
			checkRows(t, rows, tt.rows)
			if last := rows[len(rows)-1]; last != tt.end {
				t.Errorf("the final screen ends with %q, want %q below the bars:\n%s", last, tt.end, strings.Join(rows, "\n"))
			}
			if n := strings.Count(stripANSI(ft.raw()), tt.end); n != 1 {
				t.Errorf("the terminal got %q %d times, want once:\n%s", tt.end, n, stripANSI(ft.raw()))
			}
			for _, r := range rows {
				if spinnerRow.MatchString(r) || strings.Contains(r, "wave 3/5") {
					t.Errorf("the final screen keeps a row %q that should have ended with the run:\n%s", r, strings.Join(rows, "\n"))
				}
			}
		})
	}
}

// splitEnd splits off the run-finished event that ends evs, if one does.
func splitEnd(evs []progress.Event) (run, end []progress.Event) {
	if n := len(evs); n > 0 && evs[n-1].Kind == progress.RunFinished {
		return evs[:n-1], evs[n-1:]
	}
	return evs, nil
}

// checkRows checks that rows match the patterns in order.
func checkRows(t *testing.T, rows, patterns []string) {
	t.Helper()
	i := 0
	for _, p := range patterns {
		re := regexp.MustCompile(p)
		for i < len(rows) && !re.MatchString(rows[i]) {
			i++
		}
		if i == len(rows) {
			t.Errorf("the final screen has no row matching %q after the ones before it:\n%s", p, strings.Join(rows, "\n"))
			return
		}
		i++
	}
}

func TestProgressLiveEndsCleanlyAfterEarlyFailure(t *testing.T) {
	evs := failedEarly()
	tests := []struct {
		name string
		evs  []progress.Event
		end  string
	}{
		{"the run reports its failure", evs, "run r-3 failed"},
		{"the engine returns without run-finished", evs[:len(evs)-1], ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ft, l, draw := startLive(t)
			run, end := splitEnd(tt.evs)
			feed(l.emit, run)
			draw()
			ft.waitFor(t, regexp.MustCompile(`wave 2/5: config .*1/3 steps, 1 failed`))
			feed(l.emit, end)
			stopWithin(t, l.close, 2*time.Second)
			l.emit(progress.Event{Kind: progress.Note, Message: "after the end"}) // dropped, not a panic or a hang
			if left := mpbGoroutines(); left != "" {
				t.Errorf("mpb goroutines are left after close:\n%s", left)
			}
			rows := ft.finalScreen(t)
			checkRows(t, rows, []string{`^wave 1/5: namespaces .* ready$`, `^wave 2/5: config .* 1 failed$`})
			if last, want := rows[len(rows)-1], cmp.Or(tt.end, rows[len(rows)-1]); last != want {
				t.Errorf("the final screen ends with %q, want %q:\n%s", last, want, strings.Join(rows, "\n"))
			}
			for _, r := range rows {
				if spinnerRow.MatchString(r) || strings.Contains(r, "after the end") || (tt.end == "" && strings.HasPrefix(r, "run r-3 ")) {
					t.Errorf("the final screen has a row %q it should not:\n%s", r, strings.Join(rows, "\n"))
				}
			}
		})
	}
}

// mpbGoroutines returns the stacks of goroutines running mpb code, once
// they have had up to ptyWait to end: close has returned by then, and the
// few mpb leaves after Wait (its early-refresh helpers) end on their own.
func mpbGoroutines() string {
	deadline := time.Now().Add(ptyWait)
	for {
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		var left []string
		for _, g := range strings.Split(string(buf), "\n\n") {
			if strings.Contains(g, "github.com/vbauerster/mpb") {
				left = append(left, g)
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			return strings.Join(left, "\n\n")
		}
		runtime.Gosched()
	}
}

// The command's own lines (which server and context, a cache hit) written
// while the live display runs print above the bars; they never overwrite
// the spinner and leave a stale frame behind.
func TestProgressLiveLogLinesGoAboveTheBars(t *testing.T) {
	ft, l, draw := startLive(t)
	draw()
	ft.waitFor(t, spinnerRow)
	fmt.Fprintln(l, "using server https://127.0.0.1:6443, context test")
	run, end := splitEnd(finishedRun())
	feed(l.emit, run)
	draw()
	ft.waitFor(t, spinnerRow)
	feed(l.emit, end)
	stopWithin(t, l.close, ptyWait)
	rows := ft.finalScreen(t)
	checkRows(t, rows, []string{`^using server https://127\.0\.0\.1:6443, context test$`, `^run r-2: plan`, `^wave 1/1: apps .* 2/2 steps, ready$`})
	for _, r := range rows {
		if spinnerRow.MatchString(r) {
			t.Errorf("the final screen keeps a spinner frame %q:\n%s", r, strings.Join(rows, "\n"))
		}
	}
	fmt.Fprintln(l, "after the display")
	ft.waitFor(t, regexp.MustCompile(`after the display`)) // fails the test if it never arrives
}
