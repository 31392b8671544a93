package release

import (
	"context"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/apply"
	"github.com/pynenc/piceli/internal/compose"
	"github.com/pynenc/piceli/internal/compose/chart"
	"github.com/pynenc/piceli/internal/kube"
	"github.com/pynenc/piceli/internal/lock"
	"github.com/pynenc/piceli/internal/manifest"
	"github.com/pynenc/piceli/internal/object"
	planner "github.com/pynenc/piceli/internal/plan"
	"github.com/pynenc/piceli/internal/render"
	"github.com/pynenc/piceli/internal/secret"
	"github.com/pynenc/piceli/internal/wire"
	"github.com/pynenc/piceli/plan"
)

// session is one call's view of the release: its composition loaded and
// rendered, its cluster connected, its digest key, and the secret values
// the objects carry (in memory only).
type session struct {
	r          *Release
	objects    []object.Declared // rendered, in apply order, Secret values injected
	components []wire.ComponentInfo
	declared   []wire.SecretInfo // the composition's secret declarations
	client     *kube.Client
	key        []byte
	plan       *plan.Plan        // the latest plan made in this session
	source     string            // why a run of this session runs: "apply" or "rollback to N"
	images     map[string]string // the [images] the composition was given, builds resolved

	secrets    map[string]*secret.Version // resolved declared secrets
	newSecrets []*secret.Version          // versions not in the store yet
	// capabilities are the cluster's, as its charts were rendered
	// against them; nil when no chart was rendered against a cluster.
	capabilities *chart.Capabilities
	newSeed      bool // the charts drew from a new seed, not the store's
	// fromPlan says the objects are the approved plan's manifests
	// (openPlanned), not a render.
	fromPlan bool
	// sources are the files the objects were read from, when they are
	// all the objects depend on (compose.FilesOnly); nil otherwise.
	sources []manifest.Source
}

// open checks that the state directory is the release's, loads and renders
// the composition, then connects to the target.
func (r *Release) open(ctx context.Context) (*session, error) {
	return r.openAfter(ctx, nil)
}

// openAfter is open with before, when not nil, called before anything
// reaches the cluster (the charts' capabilities, the connection): the
// render goes on meanwhile, and an error from before ends open with it.
func (r *Release) openAfter(ctx context.Context, before func() error) (*session, error) {
	if err := r.checkOwner(); err != nil {
		return nil, err
	}
	d := &discoverer{r: r, before: before}
	s, err := r.load(ctx, d.capabilities)
	if d.err != nil {
		return nil, d.err
	}
	if err != nil {
		return nil, err
	}
	if before != nil {
		if err := before(); err != nil {
			return nil, err
		}
	}
	s.client, s.capabilities = d.client, d.caps
	if err := s.connect(ctx); err != nil {
		return nil, err
	}
	return s.withSharedSeed(ctx, d)
}

// withSharedSeed renders the composition again when its charts drew from a
// new seed but the state just pulled from the cluster holds one, written
// by another machine: a release renders from one seed wherever it is
// planned.
func (s *session) withSharedSeed(ctx context.Context, d *discoverer) (*session, error) {
	if !s.newSeed || !s.r.sharesState() {
		return s, nil
	}
	if v, err := secret.View(s.r.StateDir()).Latest(ChartSeedSecret); err != nil || v == nil {
		return s, err
	}
	again, err := s.r.load(ctx, d.capabilities)
	if err != nil {
		return nil, err
	}
	again.client, again.key, again.capabilities = s.client, s.key, d.caps
	return again, nil
}

// load loads and renders the composition. Its charts see the capabilities
// cluster gives, or with cluster nil the declared defaults, and nothing
// contacts a cluster. Every failure but cluster's is bad input, refused
// before anything changes.
func (r *Release) load(ctx context.Context, cluster func(context.Context) (*chart.Capabilities, error)) (*session, error) {
	if r.opts.Artifact != "" {
		return r.loadArtifact(ctx)
	}
	sp, err := r.composedSpec()
	if err != nil {
		return nil, err
	}
	seed, newSeed, err := r.chartSeed(ctx)
	if err != nil {
		return nil, err
	}
	charts := chart.Options{Seed: []byte(seed.Values()["seed"]), Cluster: cluster}
	res, err := compose.Load(ctx, sp, compose.Options{Log: r.opts.Log, CacheDir: r.opts.CacheDir, Charts: charts})
	if err != nil {
		return nil, refuse(err)
	}
	objs, err := render.Objects(res.Objects, render.Options{Namespace: r.spec.Target.Namespace, Release: r.spec.Release.Name})
	if err != nil {
		return nil, refuse(err)
	}
	if err := checkReserved(res.Secrets); err != nil {
		return nil, err
	}
	s := &session{r: r, objects: objs, components: res.Components, declared: res.Secrets, source: apply.SourceApply, images: sp.Images}
	if compose.FilesOnly(sp) {
		s.sources = res.Sources
	}
	if newSeed && len(sp.Charts)+len(res.Charts) > 0 {
		s.newSecrets, s.newSeed = append(s.newSecrets, seed), true
	}
	return s, nil
}

// connect opens the spec's target and says which server and context it
// uses, before anything else reaches the cluster, brings a shared release's
// state directory up to date with the cluster, then reads the digest key.
func (s *session) connect(ctx context.Context) error {
	c := s.client
	if c == nil {
		var err error
		if c, err = s.r.connectTarget(ctx); err != nil {
			return err
		}
	}
	if err := s.r.pullState(ctx, c); err != nil {
		return err
	}
	key, err := planner.ReadKey(s.r.StateDir())
	if err != nil {
		return err
	}
	s.client, s.key = c, key
	return nil
}

// planning says how a session plans.
type planning struct {
	allowReplace bool
	reclaim      bool // take back fields other managers edited (planner.Options Reclaim)
	parallel     int  // requests in flight; 0: planner.DefaultParallel
	// approved is the plan an approval check confirms (planner.Options
	// Approved); nil plans anew.
	approved *plan.Plan
	// approvedObjects: the session's objects are approved's manifests
	// (planner.Options ApprovedObjects).
	approvedObjects bool
	// observe is planner.Options Observe: the approval check reads the
	// readiness of what it listed there.
	observe func(object.Ref, *unstructured.Unstructured)
}

// makePlan plans the session's objects against the cluster.
func (s *session) makePlan(ctx context.Context, how planning) error {
	rel := s.r.spec.Release
	release := plan.Release{Name: rel.Name, Owner: rel.Owner, FieldManager: rel.FieldManager}
	// The plan's first round trips (the cluster's UID, discovery) go out
	// while the records are read. What the release owns and left settled
	// is read then when the plan will need it: a new plan, for every step;
	// an approval check, to judge what it may prune. Any other approval
	// check reads it only if it must (planner.Options Records): its
	// approved plan confirms the steps of a release nothing changed.
	prefetched := s.client.Prefetch(ctx)
	recs, err := readRecords(s.r.StateDir(), how.approved)
	lazy := how.approved != nil && !prunes(how.approved)
	var owned map[string]bool
	var settled map[object.Ref]planner.Settled
	if err == nil && !lazy {
		owned, settled = recs.ownership(release)
	}
	prefetched()
	if err != nil {
		return err
	}
	in := planner.Input{
		Release:             release,
		Namespace:           s.r.spec.Target.Namespace,
		Namespaces:          s.r.spec.Target.Namespaces,
		Objects:             s.objects,
		Components:          s.components,
		Prune:               rel.Prune,
		Previous:            recs.previous,
		Owned:               owned,
		RequirePinnedImages: rel.RequirePinnedImages,
		Wait:                rel.Wait,
		Environment:         s.environment(),
		Capabilities:        planCapabilities(s.capabilities),
	}
	opts := planner.Options{AllowReplace: how.allowReplace, Reclaim: how.reclaim, Key: s.key, Approved: how.approved, ApprovedObjects: how.approvedObjects, Parallel: how.parallel, Observe: how.observe, Settled: settled}
	if lazy {
		opts.Records = func() (map[string]bool, map[object.Ref]planner.Settled) { return recs.ownership(release) }
	}
	p, err := planner.Make(ctx, s.client, in, opts)
	s.plan = p
	return classify(err)
}

// prunes reports whether p found undeclared objects of the release: it
// deletes some, or keeps them and says why.
func prunes(p *plan.Plan) bool {
	return len(p.Kept) > 0 || slices.ContainsFunc(p.Steps, func(s plan.Step) bool { return s.Action == plan.Delete })
}

// environment is what a plan records of the spec's environment: its name,
// the keyed digest of its values and its images; nil when the spec
// declares no environments.
func (s *session) environment() *plan.Environment {
	sp := s.r.spec
	if sp.Environment == "" {
		return nil
	}
	images := s.images
	if images == nil {
		images = sp.Images
	}
	return &plan.Environment{Name: sp.Environment, Values: planner.Digester{Key: s.key}.Of(sp.Values), Images: maps.Clone(images), Promoted: s.r.promotion}
}

// store saves what a stored plan needs (new secret versions, the digest
// key on the first plan) and the plan, unless the plan is blocked and could
// never be applied.
func (s *session) store() error {
	if len(s.plan.Blocked()) > 0 {
		return nil
	}
	if err := s.r.claimOwner(); err != nil {
		return err
	}
	if err := s.saveSecrets(); err != nil {
		return err
	}
	if err := planner.StoreKey(s.r.StateDir(), s.key); err != nil {
		return err
	}
	_, err := planner.Save(s.r.StateDir(), s.plan)
	return err
}

// owner is the release the state directory must belong to.
func (r *Release) owner() lock.Owner {
	return lock.Owner{Release: r.spec.Release.Name, Namespace: r.spec.Target.Namespace}
}

// checkOwner refuses a state directory that belongs to another release, so
// that two releases never mix plans, runs and revisions. Every method that
// uses the state directory calls it (or claimOwner) before reading or
// writing anything there; it writes nothing itself.
func (r *Release) checkOwner() error {
	return refuse(lock.CheckOwner(r.StateDir(), r.owner()))
}

// claimOwner is checkOwner that also records the release as the owner of a
// directory without one (new, or from before owner files). It runs right
// before a method's first write that keeps something in the directory.
func (r *Release) claimOwner() error {
	return refuse(lock.ClaimOwner(r.StateDir(), r.owner()))
}
