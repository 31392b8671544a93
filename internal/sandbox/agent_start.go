package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// VolumeDir holds the volumes the agent provisions, one directory each. It
// lies inside the cluster directory, so Down removes it with the rest.
func (l Layout) VolumeDir() string { return filepath.Join(l.OwnDir(), "volumes") }

// agentReadyFile is where the agent says it runs its controllers.
func (l Layout) agentReadyFile() string { return filepath.Join(l.OwnDir(), AgentName+".ready") }

// agentStartTimeout bounds the wait for a fresh agent to list the cluster.
const agentStartTimeout = time.Minute

// startAgent starts the agent when Options.Agent names a command and waits
// until it runs its controllers, so a claim or Service created once Up
// returns is served. It fails, with the end of the agent's log, when the
// agent exits first.
func (s *Sandbox) startAgent(ctx context.Context) error {
	if len(s.opts.Agent) == 0 {
		return nil
	}
	ready := s.layout.agentReadyFile()
	if err := os.Remove(ready); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("start %s: %w", AgentName, err)
	}
	opts := AgentOptions{
		Kubeconfig:     s.layout.kwokKubeconfig(),
		VolumeDir:      s.layout.VolumeDir(),
		NoLoadBalancer: s.opts.NoLoadBalancer,
		ReadyFile:      ready,
		EgressSocket:   s.layout.EgressSocket(),
		EgressStats:    s.layout.EgressStatsFile(),
		NodeState:      s.layout.realNode().stateFile(),
	}
	pid, err := s.startOwn(ownComponent{
		Name: AgentName,
		Path: s.opts.Agent[0],
		Args: append(slices.Clone(s.opts.Agent[1:]), opts.args()...),
	})
	if err != nil {
		return err
	}
	return s.waitOwnReady(ctx, AgentName, pid, ready)
}

// readyPoll is how often waitOwnReady looks for a ready file: a stat, so
// often enough that a component ready in milliseconds (the API forwarder)
// costs Up no more.
const readyPoll = 20 * time.Millisecond

// waitOwnReady polls for the ready file while the own component name
// (pid) runs.
func (s *Sandbox) waitOwnReady(ctx context.Context, name string, pid int, ready string) error {
	ctx, cancel := context.WithTimeout(ctx, agentStartTimeout)
	defer cancel()
	tick := time.NewTicker(readyPoll)
	defer tick.Stop()
	for {
		if _, err := os.Stat(ready); err == nil {
			return nil
		}
		if !alive(pid) {
			return fmt.Errorf("%s (pid %d) exited while starting:\n%s", name, pid, s.ownLogTail(name))
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for %s (pid %d) to start: %w\n%s", name, pid, context.Cause(ctx), s.ownLogTail(name))
		case <-tick.C:
		}
	}
}

// ownLogTail is the end of an own component's log, for errors.
func (s *Sandbox) ownLogTail(name string) string {
	path := filepath.Join(s.layout.OwnDir(), name+".log")
	data, err := os.ReadFile(path)
	if err != nil {
		return "(no log at " + path + ")"
	}
	return lastLines(string(data), 15) + "\n(full log: " + path + ")"
}

// noteMissingAgent tells the user when a running sandbox, found healthy and
// reused, has no agent although one was asked for: it was started without
// (or by an older piceli), and only a restart adds it.
func (s *Sandbox) noteMissingAgent() {
	if len(s.opts.Agent) == 0 {
		return
	}
	procs, err := readOwn(s.layout)
	if err != nil || slices.ContainsFunc(procs, func(p process) bool { return p.Component == AgentName }) {
		return
	}
	stepf(s.opts.Progress, "sandbox %q runs without %s (no storage provisioner, no load-balancer addresses); "+
		"restart it to add them: piceli sandbox down --name %[1]s && piceli sandbox up --name %[1]s", s.layout.Name, AgentName)
}
