package release

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/pynenc/piceli/object"
	"github.com/pynenc/piceli/plan"
)

// PromotionSchema versions a Promotion.
const PromotionSchema = "piceli.promotion/v1"

// PromoteOptions tune Promote. The zero value is valid.
type PromoteOptions struct {
	// Options open both environments (Log, AllowExec, CacheDir,
	// StateKeyFile). Env and Artifact must be empty: Promote's from and to
	// name the environments, and it renders the spec's composition.
	Options
	// PlanOptions tune the destination's plan, as they tune Plan.
	PlanOptions
}

// Promotion is what Promote found and planned: the revision of the source
// environment whose images were promoted, the destination's [images] keys
// set to them, every destination container that now runs an image the
// source ran, and the destination's stored plan, to approve by its hash.
type Promotion struct {
	Schema string `json:"schema"` // PromotionSchema
	From   string `json:"from"`   // the source environment
	To     string `json:"to"`     // the destination environment
	// Revision is the source's latest revision, the run whose images are
	// promoted; RevisionPlan the hash of the plan it applied.
	Revision     int    `json:"revision"`
	RevisionPlan string `json:"revisionPlan"`
	// Confirmed counts what was read live in the source's cluster and
	// found running the revision's images.
	Confirmed LiveCheck `json:"confirmed"`
	// Images are the destination's [images] keys set to a digest the
	// source ran, by key; the destination's other keys, values, target and
	// release settings are its own.
	Images []PromotedImage `json:"images"`
	// Containers are the destination's containers matched with one the
	// source ran (same object kind, name and namespace, each environment's
	// target namespace counting as the same, and same container name),
	// with the image the plan gives them: the one the source ran.
	Containers []PromotedContainer `json:"containers"`
	// Plan is the destination's plan, stored like Plan's unless blocked
	// (Plan.Blocked); its environment records the promotion
	// (plan.Environment.Promoted).
	Plan *plan.Plan `json:"plan"`
}

// LiveCheck counts the live objects of the source environment that
// confirmed its revision's images.
type LiveCheck struct {
	Workloads int `json:"workloads"` // workloads whose pod template runs them
	Pods      int `json:"pods"`      // pods of those workloads (terminating ones aside) that run them
}

// PromotedImage is one [images] key of the destination and the digest
// reference it is set to.
type PromotedImage struct {
	Key string `json:"key"`
	Own string `json:"own"` // the destination's own reference, replaced
	Ran string `json:"ran"` // the digest reference the source's revision ran
}

// PromotedContainer is a container of the destination matched with one
// the source ran.
type PromotedContainer struct {
	Ref       object.Ref `json:"ref"`       // the destination's object
	Container string     `json:"container"` // an init container's name starts "init:"
	Image     string     `json:"image"`     // what the plan runs there: what the source ran
}

// Promote plans environment to of the spec at specPath with the image
// digests environment from actually runs, and stores that plan like Plan,
// to approve with Apply (release apply --env TO --approve HASH).
//
// What from runs is its latest revision (its last run that finished), the
// revision checked against its seal and its plan, then confirmed against
// the live objects in from's cluster: every workload of the revision, and
// its pods, must carry the revision's images. Then to's composition is
// rendered, each of its containers matched with one from ran, and the
// [images] keys that give those containers their images set to the
// digests from ran; everything else (values, replicas, target, release
// settings) is to's own. The plan records the promotion, so that Apply
// renders the same images.
//
// Refused (refusal.Is), with nothing written to either cluster or state:
// an unknown environment (the message lists the declared ones), from
// equal to to, from without a revision or with a damaged one, a latest
// revision whose checks failed, live objects that disagree with the
// revision (changed since by someone else, or a later run that did not
// finish), an image from ran that is not pinned by digest, a container
// whose image in to does not come from [images], and no container in
// common. Nothing is written to from's cluster; to's plan is stored as
// Plan stores one (with state = "cluster", pushed to to's shared state).
func Promote(ctx context.Context, specPath, from, to string, opts PromoteOptions) (*Promotion, error) {
	if opts.Env != "" || opts.Artifact != "" {
		return nil, refusef("promote names its environments with from and to, and renders the spec's composition: leave Options.Env and Options.Artifact empty")
	}
	src, dst, err := openPromotion(specPath, from, to, opts.Options)
	if err != nil {
		return nil, err
	}
	if err := dst.checkWriter(); err != nil {
		return nil, err
	}
	ran, err := src.ran(ctx)
	if err != nil {
		return nil, err
	}
	return dst.promote(ctx, ran, opts.PlanOptions)
}

// openPromotion opens the spec for both environments, refusing one that
// is not declared and a promotion of an environment into itself.
func openPromotion(specPath, from, to string, opts Options) (*Release, *Release, error) {
	if from == "" || to == "" {
		return nil, nil, refusef("promote needs both environments: from (the one whose images are promoted) and to (the one planned)")
	}
	srcOpts, dstOpts := opts, opts
	srcOpts.Env, dstOpts.Env = from, to
	src, err := Open(specPath, srcOpts)
	if err != nil {
		return nil, nil, err
	}
	dst, err := Open(specPath, dstOpts)
	if err != nil {
		return nil, nil, err
	}
	if from == to {
		return nil, nil, refusef("from and to are both environment %s: promote plans one environment with the images another runs", from)
	}
	return src, dst, nil
}

// promote renders the destination, works out the [images] keys the
// source's run sets, renders it again with them and plans.
func (r *Release) promote(ctx context.Context, ran *ranRevision, opts PlanOptions) (*Promotion, error) {
	if err := r.checkOwner(); err != nil {
		return nil, err
	}
	own, err := r.load(ctx, nil) // its images only: charts see the defaults
	if err != nil {
		return nil, err
	}
	m := matchRan(ran, own.objects, r.spec.Target.Namespace)
	keys, err := m.keys(own.images, ran.env, r.spec.Environment)
	if err != nil {
		return nil, refuse(err)
	}
	promoted := *r
	promoted.promotion = &plan.Promotion{From: ran.env, Revision: ran.number, Plan: ran.plan, Images: keys}
	s, err := promoted.open(ctx)
	if err != nil {
		return nil, err
	}
	containers, err := m.verify(s.objects, r.spec.Environment, ran.env, ran.number)
	if err != nil {
		return nil, refuse(err)
	}
	if err := s.resolveSecrets(ctx); err != nil {
		return nil, err
	}
	if err := s.makePlan(ctx, planning{allowReplace: opts.AllowReplace, reclaim: opts.Reclaim, parallel: opts.Parallel}); err != nil {
		return nil, err
	}
	res := &Promotion{Schema: PromotionSchema, From: ran.env, To: r.spec.Environment, Revision: ran.number, RevisionPlan: ran.plan,
		Confirmed: ran.confirmed, Images: promotedImages(own.images, keys), Containers: containers, Plan: s.plan}
	if err := s.store(); err != nil {
		return res, err
	}
	return res, s.share(ctx)
}

// promotedImages lists the keys set, sorted, with the references they
// replace.
func promotedImages(own, keys map[string]string) []PromotedImage {
	out := []PromotedImage{}
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		out = append(out, PromotedImage{Key: k, Own: own[k], Ran: keys[k]})
	}
	return out
}

// Write prints the promotion for people: where the images come from and
// how they were confirmed, the keys set, then the plan. It does not print
// the plan's hash.
func (p *Promotion) Write(w io.Writer, opts plan.WriteOptions) {
	fmt.Fprintf(w, "promote environment %s revision %d (plan %s) to environment %s\n", p.From, p.Revision, plan.ShortHash(p.RevisionPlan), p.To)
	fmt.Fprintf(w, "confirmed live in %s: %d workload(s), %d pod(s) run the revision's images\n", p.From, p.Confirmed.Workloads, p.Confirmed.Pods)
	if len(p.Images) == 0 {
		fmt.Fprintf(w, "\nimages: %s already renders every image %s ran\n", p.To, p.From)
	} else {
		fmt.Fprintf(w, "\nimages set (%d):\n", len(p.Images))
		for _, im := range p.Images {
			fmt.Fprintf(w, "  %s: %s -> %s\n", im.Key, im.Own, im.Ran)
		}
	}
	fmt.Fprintf(w, "\ncontainers of %s running what %s ran (%d):\n", p.To, p.From, len(p.Containers))
	for _, c := range p.Containers {
		fmt.Fprintf(w, "  %s container %s: %s\n", c.Ref, c.Container, c.Image)
	}
	fmt.Fprintln(w)
	if p.Plan != nil {
		p.Plan.Write(w, opts)
	}
}
