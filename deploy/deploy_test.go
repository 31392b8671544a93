package deploy_test

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pynenc/piceli/deploy"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
	"github.com/pynenc/piceli/internal/telemetry/telemetrytest"
)

// Acceptance 1, 3 and 4 of `piceli deploy` on the sandbox: the services
// example is built, pushed to a loopback registry, planned and, approved,
// applied; its trace reaches an OTLP receiver with a span per stage and
// per step under the right parents. A second deploy with nothing changed
// skips build and delivery and applies a no-op plan; after one service
// changes only its image is rebuilt and only its Deployment updated. No
// canary environment value reaches the journal, receipts or telemetry.
func TestDeployServicesSkipsWhatDidNotChange(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	const canary = "piceli-canary-5f1e2d3c4b"
	t.Setenv("PICELI_TEST_CANARY", canary)
	reg := startRegistry(t)
	rcv := telemetrytest.Start(t)
	p := servicesProject(t, sb, reg.addr, "\n[telemetry]\notlp_endpoint = \""+rcv.URL+"\"\n")

	first, approval := p.plan(t)
	if got := stages(first.State); got != "inputs done, build done, deliver done, plan done" {
		t.Errorf("first deploy's stages: %s", got)
	}
	done := p.approve(t, approval.Plan.Hash)
	if got := stages(done.State); got != "inputs done, build skipped, deliver skipped, plan skipped, apply done, checks skipped" {
		t.Errorf("approved deploy's stages: %s", got)
	}
	if done.ID != first.ID || done.Revision != 1 {
		t.Errorf("approved deploy %s revision %d, want the first deploy %s continued into revision 1", done.ID, done.Revision, first.ID)
	}
	checkTrace(t, rcv)

	reg.mu.Lock()
	writes := reg.writes
	reg.mu.Unlock()
	second, again := p.plan(t)
	if again.Plan.Changed() {
		t.Errorf("a deploy with nothing changed plans changes: %s", again.Error())
	}
	if b, d := stageStatus(t, second.State, deploy.StageBuild), stageStatus(t, second.State, deploy.StageDeliver); b != "skipped" || d != "skipped" {
		t.Errorf("unchanged deploy: build %s, deliver %s; want both skipped", b, d)
	}
	p.approve(t, again.Plan.Hash)
	reg.mu.Lock()
	if reg.writes != writes {
		t.Errorf("the unchanged deploy wrote to the registry %d times", reg.writes-writes)
	}
	reg.mu.Unlock()

	edit := filepath.Join(p.dir, "cmd", "orders", "main.go")
	data, _ := os.ReadFile(edit)
	os.WriteFile(edit, []byte(strings.Replace(string(data), `"orders service"`, `"orders service v2"`, 1)), 0o644)
	if _, err := p.run(t, deploy.Options{}); !deploy.IsRefused(err) || !strings.Contains(err.Error(), "orders/main.go changed since it was pinned") {
		t.Errorf("deploy after an unpinned change: %v, want a refusal naming the file", err)
	}
	pin(t, p.build)
	changed, third := p.plan(t)
	if b, d := stageStatus(t, changed.State, deploy.StageBuild), stageStatus(t, changed.State, deploy.StageDeliver); b != "done" || d != "done" {
		t.Errorf("after changing orders: build %s, deliver %s; want both done", b, d)
	}
	for _, s := range third.Plan.Steps {
		want := "no-op"
		if s.Ref.Kind == "Deployment" && s.Ref.Name == "orders" {
			want = "update"
		}
		if string(s.Action) != want {
			t.Errorf("after changing orders: %s plans %s, want %s", s.Ref, s.Action, want)
		}
	}
	p.approve(t, third.Plan.Hash)
	sweep(t, canary, p.dir, rcv.Raw())
}

// checkTrace finds the deploy's root span, a span per stage under it and a
// span per applied step under the apply stage.
func checkTrace(t *testing.T, rcv *telemetrytest.Receiver) {
	t.Helper()
	spans := rcv.Spans()
	byID := map[string]string{}
	for _, s := range spans {
		byID[hex.EncodeToString(s.SpanId)] = s.Name
	}
	stagesSeen, steps := map[string]bool{}, 0
	for _, s := range spans {
		parent := byID[hex.EncodeToString(s.ParentSpanId)]
		switch {
		case strings.HasPrefix(s.Name, "stage "):
			if !strings.HasPrefix(parent, "deploy services") {
				t.Errorf("span %q has parent %q, want the deploy's root span", s.Name, parent)
			}
			stagesSeen[strings.TrimPrefix(s.Name, "stage ")] = true
		case strings.HasPrefix(s.Name, "step "):
			steps++
			if parent != "stage apply" {
				t.Errorf("span %q has parent %q, want stage apply", s.Name, parent)
			}
		}
	}
	for _, st := range deploy.Stages {
		if !stagesSeen[string(st)] {
			t.Errorf("no span for stage %s among %d spans", st, len(spans))
		}
	}
	if steps < 7 {
		t.Errorf("%d step spans, want one per applied object (7 or more)", steps)
	}
	if len(rcv.Logs()) == 0 {
		t.Errorf("no log record of the deploy's result arrived")
	}
}

// sweep looks for the canary, raw and encoded, in every file under dir and
// in what the receiver got.
func sweep(t *testing.T, canary, dir string, received []byte) {
	t.Helper()
	forms := [][]byte{[]byte(canary), []byte(base64.StdEncoding.EncodeToString([]byte(canary))), []byte(hex.EncodeToString([]byte(canary)))}
	check := func(what string, data []byte) {
		for _, f := range forms {
			if bytes.Contains(data, f) {
				t.Errorf("the canary %q appears in %s", f, what)
			}
		}
	}
	check("the telemetry sent", received)
	filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() && info.Size() < 8<<20 {
			data, _ := os.ReadFile(path)
			check(path, data)
		}
		return nil
	})
}

// Acceptance 3's bound: with the endpoint at a closed port or at a
// receiver that never answers, the deploy succeeds and its telemetry adds
// at most the export timeout (1s here) to it.
func TestDeployTelemetryIsBounded(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	reg := startRegistry(t)
	p := servicesProject(t, sb, reg.addr, "\n[telemetry]\nexport_timeout = \"1s\"\n")
	if _, err := p.run(t, deploy.Options{Until: deploy.StagePlan}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, endpoint string }{
		{"no endpoint", ""}, {"closed port", telemetrytest.ClosedPort(t)}, {"silent receiver", telemetrytest.Silent(t)},
	} {
		start := time.Now()
		res, err := p.run(t, deploy.Options{Until: deploy.StagePlan, OTLPEndpoint: tc.endpoint})
		took := time.Since(start)
		if err != nil || res.Status != deploy.StatusStopped {
			t.Errorf("%s: deploy %v, want it stopped after plan without error", tc.name, err)
			continue
		}
		t.Logf("%s: deploy took %s, its telemetry %s (%s)", tc.name, took.Round(time.Millisecond), res.Telemetry.Took.Round(time.Millisecond), res.Telemetry)
		if res.Telemetry.Took > time.Second+200*time.Millisecond {
			t.Errorf("%s: telemetry held the deploy %s, over its 1s bound", tc.name, res.Telemetry.Took)
		}
	}
}
