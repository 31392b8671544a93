package apply

import (
	"github.com/pynenc/piceli/internal/graph"
	"github.com/pynenc/piceli/internal/plan"
)

// Progress receives what a run does, for a terminal or JSON lines. The
// engine calls it from several goroutines; implementations serialise.
type Progress interface {
	RunStarted(run string, p *plan.Plan)
	WaveStarted(n int, w graph.Wave)
	StepFinished(s plan.Step, err error)
	Waiting(n int, pending []string)
	Note(msg string)
	RunEnded(run string, status string, err error)
}

// silent is the Progress used when none is given.
type silent struct{}

func (silent) RunStarted(string, *plan.Plan)  {}
func (silent) WaveStarted(int, graph.Wave)    {}
func (silent) StepFinished(plan.Step, error)  {}
func (silent) Waiting(int, []string)          {}
func (silent) Note(string)                    {}
func (silent) RunEnded(string, string, error) {}
