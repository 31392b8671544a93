package deploy_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pynenc/piceli/deploy"
	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
	"github.com/pynenc/piceli/progress"
	"github.com/pynenc/piceli/release"
)

// Acceptance 2: a deploy killed with SIGKILL during delivery, then during
// apply, completes with --resume without building again and without
// writing any step twice.
func TestDeployResumesAfterSIGKILL(t *testing.T) {
	sb := sandboxtest.Cluster(t)
	reg := startRegistry(t)
	reg.hold = true
	p := servicesProject(t, sb, reg.addr, "")

	// Killed while the registry holds its first upload.
	c := startChild(t, p, "")
	select {
	case <-reg.hit:
	case <-time.After(4 * time.Minute):
		t.Fatal("the deploy never reached the registry")
	}
	c.kill(t)
	index := filepath.Join(p.dir, ".piceli-build", "oci", "index.json")
	built, err := os.Stat(index)
	if err != nil {
		t.Fatalf("the killed deploy left no layout: %v", err)
	}
	reg.mu.Lock()
	reg.hold = false
	reg.mu.Unlock()
	close(reg.open)

	res, err := p.run(t, deploy.Options{Resume: true})
	var approval *deploy.ApprovalRequiredError
	if !errors.As(err, &approval) {
		t.Fatalf("resume after the kill in delivery: %v, want approval required", err)
	}
	if b := stageStatus(t, res.State, deploy.StageBuild); b != "skipped" {
		t.Errorf("resumed deploy's build %s, want skipped", b)
	}
	if d := stageStatus(t, res.State, deploy.StageDeliver); d != "done" {
		t.Errorf("resumed deploy's delivery %s, want done", d)
	}
	if now, _ := os.Stat(index); !now.ModTime().Equal(built.ModTime()) {
		t.Errorf("the layout was written again by the resume (%s, then %s)", built.ModTime(), now.ModTime())
	}

	// Killed once the apply stage has written its first step.
	c = startChild(t, p, approval.Plan.Hash)
	if !c.waitFor(t, "step-finished") {
		t.Fatalf("the approved deploy ended before writing a step:\n%s", c.stderr.String())
	}
	c.kill(t)
	res, err = p.run(t, deploy.Options{Resume: true})
	if err != nil || res.Status != deploy.StatusFinished {
		t.Fatalf("resume after the kill in apply: %v (%+v)", err, res)
	}
	if res.Revision != 1 {
		t.Errorf("resumed deploy made revision %d, want 1", res.Revision)
	}
	noStepTwice(t, p, res.State)
}

// noStepTwice reads the engine's journal of the deploy's run: every step
// has at most one intent record across the killed and resumed processes.
func noStepTwice(t *testing.T, p project, st *deploy.State) {
	t.Helper()
	rel, err := release.Open(p.spec, release.Options{})
	if err != nil {
		t.Fatal(err)
	}
	recs, _, err := journal.Read(apply.JournalPath(rel.StateDir(), st.Run))
	if err != nil {
		t.Fatalf("read the run's journal: %v", err)
	}
	intents, applied, resumed := map[int]int{}, map[int]int{}, 0
	history := map[int][]string{}
	for _, r := range recs {
		switch r.Type {
		case journal.Intent:
			intents[r.Step]++
		case journal.Outcome, journal.Settled:
			if r.Result == journal.ResultApplied {
				applied[r.Step]++
			}
		case journal.Resumed:
			resumed++
		}
		if r.Step != journal.NoStep {
			history[r.Step] = append(history[r.Step], string(r.Type)+" "+string(r.Result))
		}
	}
	if resumed == 0 {
		t.Errorf("run %s was not resumed: the kill landed outside the apply stage", st.Run)
	}
	for step, n := range applied {
		if n > 1 {
			t.Errorf("step %d of run %s was applied %d times: %v", step, st.Run, n, history[step])
		}
	}
	for step, n := range intents {
		if n > 1 {
			t.Logf("step %d: %v (an in-doubt write settled as not applied is written again)", step, history[step])
		}
	}
	if len(intents) == 0 {
		t.Errorf("run %s journaled no intent", st.Run)
	}
}

// childDeploy is a deploy running in a test binary of its own.
type childDeploy struct {
	cmd    *exec.Cmd
	lines  *bufio.Scanner
	stderr *strings.Builder
}

func startChild(t *testing.T, p project, approve string) *childDeploy {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childSpec+"="+p.spec, "PICELI_DEPLOY_APPROVE="+approve)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	c := &childDeploy{cmd: cmd, lines: bufio.NewScanner(out), stderr: &strings.Builder{}}
	cmd.Stderr = c.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return c
}

// waitFor reads the child's events until one of kind arrives.
func (c *childDeploy) waitFor(t *testing.T, kind string) bool {
	t.Helper()
	for c.lines.Scan() {
		var e progress.Event
		if json.Unmarshal(c.lines.Bytes(), &e) == nil && string(e.Kind) == kind {
			return true
		}
	}
	return false
}

func (c *childDeploy) kill(t *testing.T) {
	t.Helper()
	c.cmd.Process.Signal(syscall.SIGKILL)
	c.cmd.Wait()
	t.Logf("killed the deploy (pid %d) with SIGKILL", c.cmd.Process.Pid)
}
