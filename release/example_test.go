package release_test

import (
	"context"
	"fmt"
	"log"

	"github.com/pynenc/piceli/progress"
	"github.com/pynenc/piceli/release"
)

// A release's whole lifecycle from Go: plan, approve the plan by its
// hash, apply exactly that plan while its progress arrives one event at a
// time, and read the history it left. The release.toml names a kubeconfig
// file and a context explicitly; nothing else is read.
func Example() {
	ctx := context.Background()
	r, err := release.Open("release.toml", release.Options{})
	if err != nil {
		log.Fatal(err)
	}

	// Plan reads the cluster and stores the plan; nothing is written.
	p, err := r.Plan(ctx, release.PlanOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("plan:", p.Summary())

	// Approving the hash applies exactly that plan, wave by wave.
	var waves int
	events := func(e progress.Event) {
		if e.Kind == progress.WaveReady {
			waves++
		}
	}
	res, err := r.Apply(ctx, p.Hash, release.RunOptions{Events: events})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("run %s: revision %d after %d waves\n", res.Phase, res.Revision, waves)

	// The cluster now matches the composition.
	again, err := r.Diff(ctx, release.PlanOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("changed after apply:", again.Changed())

	revs, err := r.History(ctx, release.HistoryOptions{})
	if err != nil {
		log.Fatal(err)
	}
	for _, rev := range revs {
		fmt.Printf("revision %d: %s, %d objects\n", rev.Number, rev.Source, rev.Objects)
	}
	// Output:
	// plan: 2 to create
	// run finished: revision 1 after 2 waves
	// changed after apply: false
	// revision 1: apply, 2 objects
}
