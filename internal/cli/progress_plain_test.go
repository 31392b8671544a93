package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pynenc/piceli/progress"
)

// plainOutput feeds evs to plain lines whose clock reads at[i] for evs[i]
// (the last entry of at for the rest) and returns the lines printed.
func plainOutput(evs []progress.Event, at ...time.Time) []string {
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
	wait := progress.Event{Kind: progress.Waiting, Wave: 0, Pending: 100, Total: 100, Names: hundredNames(), What: "objects"}
	got := plainOutput([]progress.Event{wait})
	want := []string{"  waiting for 100 of 100 objects: o-000, o-001, o-002, … (+97)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("plain line of a wait on 100 objects carrying 100 names (-want +got):\n%s", diff)
	}
}

func TestProgressPlainWaitRepeatsAtMostEvery5s(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	wait := func(wave, pending int) progress.Event {
		return progress.Event{Kind: progress.Waiting, Wave: wave, Pending: pending, Total: 100, What: "objects"}
	}
	evs := []progress.Event{wait(0, 90), wait(0, 80), wait(0, 70), wait(0, 60), wait(1, 50)}
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
		end  progress.Event
		want string
	}{
		{"a finished run says its revision", progress.Event{Kind: progress.RunFinished, Run: "r-2", Phase: "finished", Revision: 7}, "run r-2 finished: revision 7"},
		{"a stopped run says so", progress.Event{Kind: progress.RunFinished, Run: "r-4", Phase: "stopped"}, "run r-4 stopped"},
		{"a failed run says so", progress.Event{Kind: progress.RunFinished, Run: "r-3", Phase: "failed", Error: "boom"}, "run r-3 failed"},
		{"a compensated run says so", progress.Event{Kind: progress.RunFinished, Run: "r-1", Phase: "compensated"}, "run r-1 compensated"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := plainOutput([]progress.Event{tt.end, tt.end})
			if diff := cmp.Diff([]string{tt.want}, got); diff != "" {
				t.Errorf("plain lines of run-finished sent twice (-want +got):\n%s", diff)
			}
		})
	}
}

// The issue 27 case: a wave waits 5 minutes on one StatefulSet, the engine
// polls every second and sends the same wait each time. Plain output says
// so a few times, with how long it has waited, not once a poll.
func TestProgressPlainUnchangedWaitOf5MinutesPrintsFewLines(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	wait := progress.Event{Kind: progress.Waiting, Wave: 3, Pending: 1, Total: 8, Names: []string{"StatefulSet cassandra"}, What: "objects"}
	var evs []progress.Event
	var at []time.Time
	for s := 0; s <= 300; s++ {
		evs, at = append(evs, wait), append(at, t0.Add(time.Duration(s)*time.Second))
	}
	got := plainOutput(evs, at...)
	want := []string{
		"  waiting for 1 of 8 objects: StatefulSet cassandra",
		"  still waiting for 1 of 8 objects: StatefulSet cassandra (30s)",
		"  still waiting for 1 of 8 objects: StatefulSet cassandra (1m30s)",
		"  still waiting for 1 of 8 objects: StatefulSet cassandra (3m30s)",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("plain lines of the same wait every second for 5 minutes (-want +got):\n%s", diff)
	}
	if len(got) >= 15 {
		t.Errorf("a 5-minute wait on one object printed %d lines, want fewer than 15", len(got))
	}
}

func TestProgressPlainWaitPrintsWhatChanged(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	wait := func(names ...string) progress.Event {
		return progress.Event{Kind: progress.Waiting, Wave: 0, Pending: len(names), Total: 3, Names: names, What: "Deployments"}
	}
	evs := []progress.Event{wait("api", "web"), wait("api", "web"), wait("web"), wait("web"), wait("web")}
	at := []time.Time{t0, t0.Add(time.Second), t0.Add(6 * time.Second), t0.Add(7 * time.Second), t0.Add(36 * time.Second)}
	got := plainOutput(evs, at...)
	want := []string{
		"  waiting for 2 of 3 Deployments: api, web",
		"  waiting for 1 of 3 Deployments: web",             // api got ready: a change prints
		"  still waiting for 1 of 3 Deployments: web (36s)", // unchanged 30s after the change: the calm line
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("plain lines of waits at 0s, 1s, 6s (api ready), 7s and 36s (-want +got):\n%s", diff)
	}
}
