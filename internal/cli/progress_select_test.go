package cli

import (
	"bytes"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// commandWith returns a command whose stdout and stderr are the given
// writers, as a command's RunE sees them; nil leaves the process's own.
func commandWith(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{}
	cmd.SetOut(stdout)
	cmd.SetErr(stderr)
	return cmd
}

func TestProgressPlainWhenStderrIsNotATerminal(t *testing.T) {
	var stdout, stderr bytes.Buffer
	d := newProgress(commandWith(&stdout, &stderr), "text")
	sink, done := d.events, d.done
	feed(sink, finishedRun())
	done()
	want := "wave 1/1: apps (2 objects)\n"
	if !strings.Contains(stderr.String(), want) || strings.Contains(stderr.String(), "\x1b[") {
		t.Errorf("stderr = %q, want plain lines with %q and no escape sequences", stderr.String(), want)
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout = %q, want nothing", stdout.String())
	}
}

func TestProgressJSONOnStdoutEvenOnATerminal(t *testing.T) {
	ft := openTerm(t)
	var stdout bytes.Buffer
	d := newProgress(commandWith(&stdout, ft.tty), "json")
	sink, done := d.events, d.done
	feed(sink, finishedRun())
	done()
	if n := strings.Count(stdout.String(), `{"schema":"piceli.progress/v1",`); n != len(finishedRun()) {
		t.Errorf("stdout has %d JSON lines, want %d:\n%s", n, len(finishedRun()), stdout.String())
	}
	ft.drain(t)
	if raw := strings.TrimSpace(strings.ReplaceAll(ft.raw(), endMark, "")); raw != "" {
		t.Errorf("the terminal got %q with -o json, want nothing", raw)
	}
}

func TestProgressLiveOnATerminalRespectsNoColor(t *testing.T) {
	tests := []struct {
		name    string
		noColor *string // nil: unset
		colour  bool
	}{
		{"NO_COLOR unset paints the failure red", nil, true},
		{"NO_COLOR empty counts as unset", new(string), true},
		{"NO_COLOR=1 leaves colour out", ptrTo("1"), false},
	}
	red := regexp.MustCompile(`\x1b\[31m  failed  create ConfigMap/shop/b`)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("NO_COLOR", "")
			if tt.noColor == nil {
				os.Unsetenv("NO_COLOR")
			} else {
				os.Setenv("NO_COLOR", *tt.noColor)
			}
			ft := openTerm(t)
			d := newProgress(commandWith(nil, ft.tty), "text")
			sink, done := d.events, d.done
			feed(sink, failedEarly())
			stopWithin(t, done, ptyWait)
			ft.finalScreen(t)
			raw := ft.raw()
			if !strings.Contains(stripANSI(raw), "wave 2/5: config") {
				t.Fatalf("the terminal shows no wave bar, so the live display was not chosen:\n%q", raw)
			}
			if got := red.MatchString(raw); got != tt.colour {
				t.Errorf("failure line painted red = %v, want %v:\n%q", got, tt.colour, raw)
			}
			if !tt.colour && regexp.MustCompile(`\x1b\[[0-9;]*m`).MatchString(raw) {
				t.Errorf("the terminal got a colour sequence under NO_COLOR:\n%q", raw)
			}
		})
	}
}

func ptrTo(s string) *string { return &s }
