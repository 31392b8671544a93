// Package synthetic is the benchmark's synthetic release as a Go
// composition. It lives outside internal/ because it is what a user's
// composition is: a program over the public builder app, which no internal
// package imports.
package synthetic

import (
	"fmt"
	"strconv"

	"github.com/pynenc/piceli/app"
	"github.com/pynenc/piceli/internal/bench/synth"
)

// Build is the synthetic release as a Go composition: the objects of
// synth.Objects for the values "mix" and "objects" of release.toml.
func Build(ctx *app.Context) (*app.Composition, error) {
	n, err := strconv.Atoi(ctx.Value("objects"))
	if err != nil {
		return nil, fmt.Errorf("value objects: %w", err)
	}
	objs, err := synth.Objects(synth.Mix(ctx.Value("mix")), n)
	if err != nil {
		return nil, err
	}
	a := app.New("bench")
	a.Unstructured(objs...)
	return a.Composition(ctx)
}
