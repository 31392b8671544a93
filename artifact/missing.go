package artifact

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// Missing returns the names of the layout's images (opts.Images, or all)
// that opts.Target does not hold: for containerd, the ones the granted
// ctr's `images ls -q` does not list; for a registry at
// opts.Registry.Address, those whose manifest it does not have. It writes
// nothing and refuses what Import refuses (bad options, a missing grant).
// Other targets cannot be asked: every image is missing.
func Missing(ctx context.Context, dir string, opts ImportOptions) ([]string, error) {
	d, err := newDelivery(ctx, dir, opts)
	if err != nil {
		return nil, err
	}
	var have func(chosen) (bool, error)
	switch {
	case opts.Target == TargetContainerd:
		listed, err := d.containerdImages(ctx)
		if err != nil {
			return nil, err
		}
		have = func(c chosen) (bool, error) { return slices.Contains(listed, c.reference), nil }
	case opts.Target == TargetRegistry && opts.Registry.Address != "":
		have = func(c chosen) (bool, error) { return d.registryHas(ctx, c) }
	default:
		have = func(chosen) (bool, error) { return false, nil }
	}
	var out []string
	for _, c := range d.imgs {
		ok, err := have(c)
		if err != nil {
			return nil, err
		}
		if !ok {
			out = append(out, c.name)
		}
	}
	return out, nil
}

// containerdImages lists the image names containerd holds, through the
// granted ctr, bounded in time.
func (d *delivery) containerdImages(ctx context.Context) ([]string, error) {
	t := d.rec.Target
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var out, errb bytes.Buffer
	cmd := exec.CommandContext(ctx, d.tools[ToolCtr].Path, "--address", t.Address, "--namespace", t.Namespace, "images", "ls", "-q")
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("list containerd's images: %w: %s", err, d.red.clean(strings.TrimSpace(errb.String())))
	}
	return strings.Fields(out.String()), nil
}

// registryHas reports whether the registry has the image's manifest.
func (d *delivery) registryHas(ctx context.Context, c chosen) (bool, error) {
	o := d.opts.Registry
	var nameOpts []name.Option
	if o.Insecure || isLoopback(o.Address) {
		nameOpts = append(nameOpts, name.Insecure)
	}
	ref, err := name.NewDigest(o.Address+"/"+c.repository+"@"+c.desc.Digest.String(), nameOpts...)
	if err != nil {
		return false, err
	}
	if _, err := remote.Head(ref, remote.WithContext(ctx), remote.WithTransport(loopbackSafeTransport())); err != nil {
		return false, nil
	}
	return true, nil
}
