package release

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/spec"
)

// ranMatch pairs the destination's containers with those the source ran.
type ranMatch struct {
	pairs []ranPair
}

// ranPair is one container of the destination and the image the source
// ran in the container of the same name of the matching object.
type ranPair struct {
	ref       object.Ref // the destination's object
	container string
	own       string // the image the destination renders there
	ran       string // the image the source ran there
}

// matchRan matches the destination's rendered objects (target namespace
// dstNS) with the workloads the source ran: same group, kind and name, in
// the same namespace with each environment's target namespace counting as
// the same, then containers by name.
func matchRan(ran *ranRevision, objs []object.Declared, dstNS string) *ranMatch {
	byKey := map[string]ranWorkload{}
	for _, w := range ran.workloads {
		byKey[matchKey(w.ref, ran.namespace)] = w
	}
	m := &ranMatch{}
	for _, o := range objs {
		ref := object.RefOf(o.Object)
		w, ok := byKey[matchKey(ref, dstNS)]
		if !ok {
			continue
		}
		for _, c := range containersOf(o.Object) {
			if i := slices.IndexFunc(w.containers, func(r containerImage) bool { return r.name == c.name }); i >= 0 {
				m.pairs = append(m.pairs, ranPair{ref: ref, container: c.name, own: c.image, ran: w.containers[i].image})
			}
		}
	}
	return m
}

// matchKey is ref with the target namespace ns written "~".
func matchKey(ref object.Ref, ns string) string {
	if ref.Namespace == ns {
		ref.Namespace = "~"
	}
	return ref.Group + "/" + ref.String()
}

// keys works out the destination's [images] keys (images, resolved) that
// give its matched containers the images the source ran: each container
// whose image differs sets every key whose reference it renders. Refused:
// no container matched, an image ran that is not pinned by digest, a
// container image no key gives, and a key two containers want set to two
// digests.
func (m *ranMatch) keys(images map[string]string, from, to string) (map[string]string, error) {
	if len(m.pairs) == 0 {
		return nil, fmt.Errorf("no container of environment %s matches one environment %s ran (objects are matched by kind, name and namespace, containers by name): nothing to promote", to, from)
	}
	keys := map[string]string{}
	var errs []error
	for _, p := range m.pairs {
		if p.own == p.ran {
			continue
		}
		if !spec.Pinned(p.ran) {
			errs = append(errs, fmt.Errorf("%s container %q: environment %s ran %q, which is not pinned by digest (name@sha256:<64 hex>); promote copies digests only", p.ref, p.container, from, p.ran))
			continue
		}
		set := keysOf(images, p.own)
		if len(set) == 0 {
			errs = append(errs, fmt.Errorf("%s container %q: environment %s renders image %q, which no [images] key gives, so promote cannot set it to the %q environment %s ran (promote changes [images] only)", p.ref, p.container, to, p.own, p.ran, from))
			continue
		}
		for _, k := range set {
			if prev, ok := keys[k]; ok && prev != p.ran {
				errs = append(errs, fmt.Errorf("[images] %s of environment %s: environment %s ran both %q and %q where %s renders it", k, to, from, prev, p.ran, to))
				continue
			}
			keys[k] = p.ran
		}
	}
	return keys, errors.Join(errs...)
}

// keysOf lists the keys whose reference is image, sorted.
func keysOf(images map[string]string, image string) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(images)) {
		if images[k] == image {
			out = append(out, k)
		}
	}
	return out
}

// verify checks the destination rendered again with the promoted keys:
// every matched container must now run the image the source ran (a
// composition that does not take the image from those keys alone is
// refused). It returns the matched containers for the Promotion.
func (m *ranMatch) verify(objs []object.Declared, to, from string, revision int) ([]PromotedContainer, error) {
	now := map[string]string{}
	for _, o := range objs {
		for _, c := range containersOf(o.Object) {
			now[object.RefOf(o.Object).String()+"\x00"+c.name] = c.image
		}
	}
	out := []PromotedContainer{}
	var errs []error
	for _, p := range m.pairs {
		got, ok := now[p.ref.String()+"\x00"+p.container]
		if !ok || got != p.ran {
			errs = append(errs, fmt.Errorf("%s container %q: with the promoted [images], environment %s renders %q, not the %q environment %s revision %d ran (the composition does not take this image from [images] alone)", p.ref, p.container, to, got, p.ran, from, revision))
			continue
		}
		out = append(out, PromotedContainer{Ref: p.ref, Container: p.container, Image: p.ran})
	}
	return out, errors.Join(errs...)
}
