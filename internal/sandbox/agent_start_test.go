package sandbox

import (
	"strings"
	"syscall"
	"testing"
)

// readyAgent is an agent stand-in: it creates the file --ready-file names
// and runs until SIGTERM.
const readyAgent = `while [ "$1" != --ready-file ]; do shift; done; touch "$2"; trap "exit 0" TERM; while :; do sleep 0.05; done`

// Up's agent starter records the agent and returns once it says it is
// ready; an agent that exits first fails it with the agent's own words.
func TestStartAgentWaitsForReadyOrExit(t *testing.T) {
	t.Run("ready", func(t *testing.T) {
		s := ownSandbox(t)
		s.opts.Agent = []string{"/bin/sh", "-c", readyAgent, "agent"}
		if err := s.startAgent(t.Context()); err != nil {
			t.Fatalf("startAgent = %v", err)
		}
		procs, _ := readOwn(s.layout)
		if len(procs) != 1 || procs[0].Component != AgentName || !procs[0].running() {
			t.Fatalf("own components after startAgent = %+v; want %s running", procs, AgentName)
		}
		t.Cleanup(func() { _ = syscall.Kill(procs[0].PID, syscall.SIGKILL) })
		if err := s.stopOwn(t.Context()); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("exits", func(t *testing.T) {
		s := ownSandbox(t)
		s.opts.Agent = []string{"/bin/sh", "-c", "echo cannot reach the API server >&2; exit 3", "agent"}
		err := s.startAgent(t.Context())
		if err == nil || !strings.Contains(err.Error(), "exited while starting") || !strings.Contains(err.Error(), "cannot reach the API server") {
			t.Fatalf("startAgent(an agent that exits) = %v; want the exit and its log", err)
		}
	})
	t.Run("none asked for", func(t *testing.T) {
		s := ownSandbox(t)
		if err := s.startAgent(t.Context()); err != nil {
			t.Fatal(err)
		}
		if procs, _ := readOwn(s.layout); len(procs) != 0 {
			t.Fatalf("own components without Options.Agent = %+v; want none", procs)
		}
	})
}
