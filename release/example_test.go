package release_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/pynenc/piceli/release"
)

// A release's whole lifecycle from Go: ask to apply, get the plan that
// needs approval, approve it by its hash, apply exactly that plan, and read
// the history it left. The release.toml names a kubeconfig file and a
// context explicitly; nothing else is read.
func Example() {
	ctx := context.Background()
	r, err := release.Open("release.toml", release.Options{})
	if err != nil {
		log.Fatal(err)
	}

	// Without an approved hash, Apply plans, stores the plan and asks.
	_, err = r.Apply(ctx, "", release.RunOptions{})
	var approval *release.ApprovalRequiredError
	if !errors.As(err, &approval) {
		log.Fatalf("want an approval request, got %v", err)
	}
	p := approval.Plan
	fmt.Println("plan:", p.Summary())

	// Approving the hash applies exactly that plan, wave by wave.
	var waves int
	r, _ = release.Open("release.toml", release.Options{Events: func(e release.Event) {
		if e.Kind == release.WaveReady {
			waves++
		}
	}})
	res, err := r.Apply(ctx, p.Hash, release.RunOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("run %s: revision %d after %d waves\n", res.Status, res.Revision, waves)

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
