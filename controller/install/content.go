package install

import (
	"fmt"

	"github.com/pynenc/piceli/app"
	"github.com/pynenc/piceli/internal/graph"
	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/render"
	"github.com/pynenc/piceli/publish"
)

// Content is the controller's release as an artifact carries it: its
// manifests in apply order (the state key's Secret without a value) and
// its metadata, the Secret declared by source. Options must be valid for
// an install (Prepare checks them). It reads nothing and is deterministic.
func Content(o Options) (*publish.Content, error) {
	if err := o.check(true); err != nil {
		return nil, err
	}
	return content(o, true)
}

// UninstallContent is the release an uninstall plans: only the CRD, which
// stays, so that the Releases people wrote are not deleted with it; prune
// deletes every other object the install created.
func UninstallContent(o Options) (*publish.Content, error) {
	if err := o.check(false); err != nil {
		return nil, err
	}
	return content(o, false)
}

func content(o Options, install bool) (*publish.Content, error) {
	a := app.New(ReleaseName)
	compose(a, o, install)
	comp, err := a.Composition(nil)
	if err != nil {
		return nil, fmt.Errorf("controller release: %w", err)
	}
	in := make([]object.Declared, 0, len(comp.Objects()))
	for _, ob := range comp.Objects() {
		in = append(in, object.Declared{Origin: "piceli controller install: " + ob.Origin, DependsOn: ob.DependsOn, Object: ob.Object})
	}
	objs, err := render.Objects(in, render.Options{Namespace: o.namespace(), Release: ReleaseName})
	if err != nil {
		return nil, fmt.Errorf("controller release: %w", err)
	}
	md := publish.Metadata{Schema: publish.MetadataSchema, Release: ReleaseName, Namespace: o.namespace(), Secrets: comp.Secrets()}
	if install {
		md.Images = map[string]string{"controller": o.Image}
	}
	for i, d := range objs {
		ref := object.RefOf(d.Object)
		md.Objects = append(md.Objects, publish.ObjectInfo{
			File: render.FileName(i, d.Object, render.YAML), Ref: ref.String(),
			Wave: string(graph.StageOf(ref.Group, ref.Kind)), Origin: d.Origin, DependsOn: d.DependsOn,
		})
	}
	return &publish.Content{Manifests: render.Manifests(objs), Metadata: md}, nil
}
