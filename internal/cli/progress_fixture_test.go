package cli

import (
	"fmt"

	"github.com/pynenc/piceli/progress"
)

const fixturePlan = "sha256:5e1f0c2d9a7b3e4f60718293a4b5c6d7e8f90123456789abcdef0123456789ab"

// compensatedRun is a three-wave run: a settled step and a note from a
// resume, a config wave with a step not waited for, an apps wave of 100 Deployments that waits for 62
// of them, and a routes wave whose only step fails, after which the
// written steps are undone.
func compensatedRun() []progress.Event {
	const ingressErr = `create Ingress/shop/web: admission webhook "validate.nginx.ingress.kubernetes.io" denied the request`
	evs := []progress.Event{
		{Kind: progress.RunStarted, Run: "r-1", Plan: fixturePlan, Summary: "3 to create, 3 to update, 97 unchanged", Waves: 3},
		{Kind: progress.Note, Message: "journal: repaired a torn last record (12 bytes)"},
		{Kind: progress.Settled, Ref: "ConfigMap/shop/settings", Action: "create", Result: "applied"},
		{Kind: progress.WaveStarted, Wave: 0, Waves: 3, Stage: "config", Objects: 2},
		{Kind: progress.StepStarted, Wave: 0, Ref: "Secret/shop/db", Action: "create"},
		{Kind: progress.StepFinished, Wave: 0, Ref: "Secret/shop/db", Action: "create", Result: "applied"},
		{Kind: progress.WaitSkipped, Wave: 0, Ref: "Secret/shop/db", Action: "create", Message: `annotated piceli.dev/wait: "false"`},
		{Kind: progress.WaveReady, Wave: 0, Waves: 3, Objects: 2},
		{Kind: progress.WaveStarted, Wave: 1, Waves: 3, Stage: "apps", Objects: 100},
	}
	apps := []string{"d-00039", "d-00099", "d-00100"}
	for _, name := range apps {
		evs = append(evs, progress.Event{Kind: progress.StepStarted, Wave: 1, Ref: "Deployment/shop/" + name, Action: "update"})
	}
	for _, name := range apps {
		evs = append(evs, progress.Event{Kind: progress.StepFinished, Wave: 1, Ref: "Deployment/shop/" + name, Action: "update", Result: "applied"})
	}
	evs = append(evs,
		progress.Event{Kind: progress.Waiting, Wave: 1, Pending: 62, Total: 100, Names: apps, What: "Deployments"},
		progress.Event{Kind: progress.WaveReady, Wave: 1, Waves: 3, Objects: 100},
		progress.Event{Kind: progress.WaveStarted, Wave: 2, Waves: 3, Stage: "routes", Objects: 1},
		progress.Event{Kind: progress.StepStarted, Wave: 2, Ref: "Ingress/shop/web", Action: "create"},
		progress.Event{Kind: progress.StepFinished, Wave: 2, Ref: "Ingress/shop/web", Action: "create", Result: "failed", Error: ingressErr},
	)
	for _, name := range []string{"d-00100", "d-00099", "d-00039"} {
		evs = append(evs, progress.Event{Kind: progress.Compensating, Ref: "Deployment/shop/" + name, Result: "applied"})
	}
	return append(evs,
		progress.Event{Kind: progress.Compensating, Ref: "Secret/shop/db", Result: "applied"},
		progress.Event{Kind: progress.RunFinished, Run: "r-1", Phase: "compensated", Error: ingressErr},
	)
}

// finishedRun is a one-wave run that becomes revision 7.
func finishedRun() []progress.Event {
	return []progress.Event{
		{Kind: progress.RunStarted, Run: "r-2", Plan: fixturePlan, Summary: "2 to create", Waves: 1},
		{Kind: progress.WaveStarted, Wave: 0, Waves: 1, Stage: "apps", Objects: 2},
		{Kind: progress.StepFinished, Wave: 0, Ref: "Deployment/shop/web", Action: "create", Result: "applied"},
		{Kind: progress.StepFinished, Wave: 0, Ref: "Service/shop/web", Action: "create", Result: "applied"},
		{Kind: progress.Waiting, Wave: 0, Pending: 1, Total: 2, Names: []string{"web"}, What: "Deployment"},
		{Kind: progress.WaveReady, Wave: 0, Waves: 1, Objects: 2},
		{Kind: progress.RunFinished, Run: "r-2", Phase: "finished", Revision: 7},
	}
}

// failedEarly is a five-wave run that fails in its second wave, so waves
// 3 to 5 never start.
func failedEarly() []progress.Event {
	return []progress.Event{
		{Kind: progress.RunStarted, Run: "r-3", Plan: fixturePlan, Summary: "9 to create", Waves: 5},
		{Kind: progress.WaveStarted, Wave: 0, Waves: 5, Stage: "namespaces", Objects: 1},
		{Kind: progress.StepFinished, Wave: 0, Ref: "Namespace//shop", Action: "create", Result: "applied"},
		{Kind: progress.WaveReady, Wave: 0, Waves: 5, Objects: 1},
		{Kind: progress.WaveStarted, Wave: 1, Waves: 5, Stage: "config", Objects: 3},
		{Kind: progress.StepFinished, Wave: 1, Ref: "ConfigMap/shop/a", Action: "create", Result: "applied"},
		{Kind: progress.StepFinished, Wave: 1, Ref: "ConfigMap/shop/b", Action: "create", Result: "failed", Error: "create ConfigMap/shop/b: connection refused"},
		{Kind: progress.RunFinished, Run: "r-3", Phase: "failed", Error: "create ConfigMap/shop/b: connection refused"},
	}
}

// hundredNames returns o-000 … o-099.
func hundredNames() []string {
	names := make([]string, 100)
	for i := range names {
		names[i] = fmt.Sprintf("o-%03d", i)
	}
	return names
}

// indexOf returns the index of the first event of kind k, or -1.
func indexOf(evs []progress.Event, k progress.Kind) int {
	for i, e := range evs {
		if e.Kind == k {
			return i
		}
	}
	return -1
}

// feed sends the events to s in order.
func feed(s func(progress.Event), evs []progress.Event) {
	for _, e := range evs {
		s(e)
	}
}
