package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pynenc/piceli/release"
)

// plainOutput feeds evs to plain lines whose clock reads at[i] for evs[i]
// (the last entry of at for the rest) and returns the lines printed.
func plainOutput(evs []release.Event, at ...time.Time) []string {
	var buf bytes.Buffer
	var now time.Time
	p := newPlain(&buf, func() time.Time { return now })
	for i, e := range evs {
		if len(at) > 0 {
			now = at[min(i, len(at)-1)]
		}
		p.emit(e)
	}
	return strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
}

func TestProgressPlainRun(t *testing.T) {
	got := plainOutput(compensatedRun())
	want := []string{
		"run r-1: plan 5e1f0c2d9a7b, 3 to create, 3 to update, 97 unchanged",
		"  journal: repaired a torn last record (12 bytes)",
		"  settled ConfigMap/shop/settings: applied",
		"wave 1/3: config (2 objects)",
		"  done    create Secret/shop/db",
		`  no wait Secret/shop/db (annotated piceli.dev/wait: "false")`,
		"wave 2/3: apps (100 objects)",
		"  done    update Deployment/shop/d-00039",
		"  done    update Deployment/shop/d-00099",
		"  done    update Deployment/shop/d-00100",
		"  waiting for 62 of 100 Deployments: d-00039, d-00099, d-00100, … (+59)",
		"wave 3/3: routes (1 object)",
		`  failed  create Ingress/shop/web: create Ingress/shop/web: admission webhook "validate.nginx.ingress.kubernetes.io" denied the request`,
		"  undo Deployment/shop/d-00100: applied",
		"  undo Deployment/shop/d-00099: applied",
		"  undo Deployment/shop/d-00039: applied",
		"  undo Secret/shop/db: applied",
		"run r-1 compensated",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("plain lines of compensatedRun() (-want +got):\n%s", diff)
	}
}

func TestProgressPlainWaitShowsCountsAndAtMostThreeNames(t *testing.T) {
	wait := release.Event{Kind: release.Waiting, Wave: 0, Pending: 100, Total: 100, Names: hundredNames(), What: "objects"}
	got := plainOutput([]release.Event{wait})
	want := []string{"  waiting for 100 of 100 objects: o-000, o-001, o-002, … (+97)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("plain line of a wait on 100 objects carrying 100 names (-want +got):\n%s", diff)
	}
}

func TestProgressPlainWaitRepeatsAtMostEvery5s(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	wait := func(wave, pending int) release.Event {
		return release.Event{Kind: release.Waiting, Wave: wave, Pending: pending, Total: 100, What: "objects"}
	}
	evs := []release.Event{wait(0, 90), wait(0, 80), wait(0, 70), wait(0, 60), wait(1, 50)}
	at := []time.Time{t0, t0.Add(time.Second), t0.Add(4999 * time.Millisecond), t0.Add(5 * time.Second), t0.Add(6 * time.Second)}
	got := plainOutput(evs, at...)
	want := []string{
		"  waiting for 90 of 100 objects", // a wave's first wait prints at once
		"  waiting for 60 of 100 objects", // 5s after the last printed
		"  waiting for 50 of 100 objects", // a new wave's first wait is not held back
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("plain lines of waits at 0s, 1s, 4.999s, 5s and (next wave) 6s (-want +got):\n%s", diff)
	}
}

func TestProgressPlainEndPrintedOnce(t *testing.T) {
	tests := []struct {
		name string
		end  release.Event
		want string
	}{
		{"a finished run says its revision", release.Event{Kind: release.RunFinished, Run: "r-2", Status: "finished", Revision: 7}, "run r-2 finished: revision 7"},
		{"a stopped run says so", release.Event{Kind: release.RunFinished, Run: "r-4", Status: "stopped"}, "run r-4 stopped"},
		{"a failed run says so", release.Event{Kind: release.RunFinished, Run: "r-3", Status: "failed", Error: "boom"}, "run r-3 failed"},
		{"a compensated run says so", release.Event{Kind: release.RunFinished, Run: "r-1", Status: "compensated"}, "run r-1 compensated"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := plainOutput([]release.Event{tt.end, tt.end})
			if diff := cmp.Diff([]string{tt.want}, got); diff != "" {
				t.Errorf("plain lines of run-finished sent twice (-want +got):\n%s", diff)
			}
		})
	}
}
