package cli

import (
	"github.com/spf13/cobra"

	"github.com/pynenc/piceli/internal/compose"
	"github.com/pynenc/piceli/internal/render"
	"github.com/pynenc/piceli/internal/spec"
)

// loaded is a release spec with its composition loaded and rendered.
type loaded struct {
	Spec        *spec.Spec
	Composition *compose.Result
	Objects     []compose.Object // rendered, in apply order
}

// readSpec reads and validates a spec alone, for commands that read only
// the state directory; a bad spec is refused.
func readSpec(path string) (*spec.Spec, error) {
	s, err := spec.Load(path)
	return s, refused(err)
}

// loadSpec reads a spec, loads its composition and renders it. Every
// failure here is bad input, refused before anything changes.
func loadSpec(cmd *cobra.Command, path string) (*loaded, error) {
	s, err := readSpec(path)
	if err != nil {
		return nil, err
	}
	res, err := compose.Load(cmd.Context(), s, compose.Options{Log: cmd.ErrOrStderr()})
	if err != nil {
		return nil, refused(err)
	}
	objs, err := render.Objects(res.Objects, render.Options{Namespace: s.Target.Namespace, Release: s.Release.Name})
	if err != nil {
		return nil, refused(err)
	}
	return &loaded{Spec: s, Composition: res, Objects: objs}, nil
}
