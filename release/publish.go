package release

import (
	"context"
	"io"

	"github.com/pynenc/piceli/artifact"
	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/graph"
	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/render"
	"github.com/pynenc/piceli/publish"
)

// PublishOptions say where Publish puts the release's artifact: exactly
// one of Out and To.
type PublishOptions struct {
	// Out is a directory to write the artifact into as an OCI layout.
	Out string
	// To is a registry reference to push it to, oci://HOST[:PORT]/REPO:TAG.
	To string
	// Registry carries the push's credentials and Insecure (plain HTTP to
	// a registry that is not on loopback).
	Registry artifact.RegistryOptions
	// Log receives one line per step; nil discards.
	Log io.Writer
}

// Publish renders the release and writes it as an OCI artifact in the
// layout `flux push artifact` writes, with the release's metadata inside
// (package publish describes it), to an OCI layout directory or a
// registry. The same inputs give the same digest. A Secret carrying values
// and an image not pinned by digest are refused (refusal.Is) before
// anything is written. It never contacts a cluster.
func (r *Release) Publish(ctx context.Context, opts PublishOptions) (*publish.Result, error) {
	if (opts.Out == "") == (opts.To == "") {
		return nil, refusef("publish release %s: give an OCI layout directory or a registry reference to push to, one of them", r.Name())
	}
	var dest publish.Destination
	if opts.To != "" {
		d, err := publish.ParseDestination(opts.To)
		if err != nil {
			return nil, err
		}
		dest = d
	}
	c, err := r.Published(ctx)
	if err != nil {
		return nil, err
	}
	a, err := publish.Build(c)
	if err != nil {
		return nil, err
	}
	res := &publish.Result{Schema: publish.ResultSchema, Digest: a.Digest, Files: a.Files, Bytes: a.Bytes()}
	if opts.Out != "" {
		res.Reference = opts.Out + "@" + a.Digest
		return res, publish.WriteLayout(opts.Out, a, r.Name())
	}
	res.Reference, err = publish.Push(ctx, a, dest, publish.PushOptions{Registry: opts.Registry, Log: opts.Log})
	return res, err
}

// Published is the release's content as Publish puts it into an
// artifact: its rendered manifests (Secrets without values) and its
// metadata. It never contacts a cluster.
func (r *Release) Published(ctx context.Context) (*publish.Content, error) {
	s, err := r.load(ctx, nil)
	if err != nil {
		return nil, err
	}
	sp, err := r.composedSpec()
	if err != nil {
		return nil, err
	}
	md := publish.Metadata{
		Schema: publish.MetadataSchema, Release: r.Name(), Namespace: r.spec.Target.Namespace,
		Components: s.components, Secrets: s.declared, Wait: r.spec.Release.Wait, Images: sp.Images,
	}
	c := &publish.Content{Manifests: render.Manifests(s.objects)}
	for i, o := range s.objects {
		ref := object.RefOf(o.Object)
		md.Objects = append(md.Objects, publish.ObjectInfo{
			File: render.FileName(i, o.Object, render.YAML), Ref: ref.String(), Wave: string(graph.StageOf(ref.Group, ref.Kind)),
			Origin: o.Origin, DependsOn: o.DependsOn,
		})
	}
	for _, ch := range r.spec.Checks {
		md.Checks = append(md.Checks, publish.CheckInfo{Name: ch.Name, Kind: ch.Kind()})
	}
	c.Metadata = md
	return c, nil
}

// loadArtifact loads the published release opts.Artifact names instead of
// the spec's composition: its objects, components and secret
// declarations. An artifact of another release or namespace is refused.
func (r *Release) loadArtifact(ctx context.Context) (*session, error) {
	a, err := publish.Fetch(ctx, r.opts.Artifact, artifact.RegistryOptions{})
	if err != nil {
		return nil, err
	}
	c, err := publish.Decode(a)
	if err != nil {
		return nil, err
	}
	md := c.Metadata
	if md.Release != r.Name() || md.Namespace != r.spec.Target.Namespace {
		return nil, refusef("artifact %s is release %s in namespace %s; the spec %s is release %s in namespace %s",
			r.opts.Artifact, md.Release, md.Namespace, r.spec.Path, r.Name(), r.spec.Target.Namespace)
	}
	in := make([]object.Declared, len(c.Manifests))
	for i, u := range c.Manifests {
		in[i] = object.Declared{Origin: md.Objects[i].Origin, DependsOn: md.Objects[i].DependsOn, Object: u}
	}
	objs, err := render.Objects(in, render.Options{Namespace: md.Namespace, Release: md.Release})
	if err != nil {
		return nil, refuse(err)
	}
	return &session{r: r, objects: objs, components: md.Components, declared: md.Secrets, source: apply.SourceApply}, nil
}
