package plan

import (
	"fmt"
	"maps"

	"github.com/pynenc/piceli/object"
)

// Schema versions the plan document.
const Schema = "piceli.plan/v1"

// Action is what applying a step does to its object. Actions are persisted
// in plan documents, so they are stable strings.
type Action string

// The actions of a step.
const (
	Create  Action = "create"  // the object is absent and will be created
	Update  Action = "update"  // fields this release sets will change
	NoOp    Action = "no-op"   // nothing this release sets would change
	Adopt   Action = "adopt"   // the object exists but this release never created it
	Replace Action = "replace" // an immutable field changes: delete, then create
	Delete  Action = "delete"  // this release created it earlier and no longer declares it
)

// Plan is what applying a composition to one target would do. Everything
// but its seals, its Kept objects and the Changes, Origins and Warnings of
// its steps is covered by its hash (those are derived for people, not
// approved); everything but its hash and its own seal, by its seal.
type Plan struct {
	Schema string `json:"schema"` // Schema
	// Hash identifies the plan: "sha256:" and 64 hex digits, filled when
	// the plan is stored; what an operator approves.
	Hash    string  `json:"hash,omitempty"`
	Seal    string  `json:"seal,omitempty"` // keyed digest of the stored plan; not hashed
	Release Release `json:"release"`
	Target  Target  `json:"target"`
	// Environment is the environment of the release spec the plan was
	// made for; nil when the spec declares none. Hashed: a plan approved
	// for one environment never runs for another, nor after its values
	// or images changed.
	Environment *Environment `json:"environment,omitempty"`
	// Capabilities are the target's, as the release's Helm charts were
	// rendered against them; nil when it has none. Hashed: a plan
	// approved for one Kubernetes version never runs on another.
	Capabilities *Capabilities `json:"capabilities,omitempty"`
	// Namespaces are the namespaces the steps write to, sorted: the
	// target namespace and those release.toml allows besides it.
	Namespaces []string `json:"namespaces,omitempty"`
	// Steps are the plan's steps, one per object; Waves index into it.
	Steps []Step `json:"steps"`
	// Waves are the groups of steps applied together, in order; each
	// waits for the readiness of the one before.
	Waves []Wave `json:"waves"`
	// Kept are the undeclared objects of the release the plan does not
	// delete, with why. Not hashed: the plan does nothing to them.
	Kept []Kept `json:"kept,omitempty"`
	// Inputs is a keyed digest of the files the composition was rendered
	// from, recorded when its objects depend on nothing else: YAML or
	// JSON files without Secrets, charts or kustomizations. An apply that
	// finds the same files, byte for byte, takes the plan's manifests
	// instead of rendering them again. Empty for any other plan. Not
	// hashed (the manifests it stands for are); sealed.
	Inputs string `json:"inputs,omitempty"`
}

// Release names the release a plan belongs to.
type Release struct {
	Name         string `json:"name"`
	Owner        string `json:"owner"`        // the value of the release label on its objects
	FieldManager string `json:"fieldManager"` // the server-side apply field manager
}

// Environment is the environment of a release spec ([environments.<name>]
// in release.toml) as resolved when the plan was made.
type Environment struct {
	Name string `json:"name"`
	// Values is the keyed digest of the resolved [values]: the plan binds
	// them without recording them.
	Values string `json:"values"`
	// Images are the resolved [images], key to reference.
	Images map[string]string `json:"images,omitempty"`
	// Promoted, on a plan made by promote, says which [images] keys were
	// set to the digests another environment's revision ran, in place of
	// the spec's own: applying the plan renders the composition with
	// them. Nil on any other plan.
	Promoted *Promotion `json:"promoted,omitempty"`
}

// Promotion is what a promoted plan took from another environment of the
// spec: the revision it ran and the [images] keys set to its digests.
type Promotion struct {
	From     string `json:"from"`     // the environment whose run was promoted
	Revision int    `json:"revision"` // that environment's revision
	Plan     string `json:"plan"`     // the hash of the plan that revision applied
	// Images are the keys set, to the digest references the revision ran
	// (every other key is the environment's own).
	Images map[string]string `json:"images"`
}

// Capabilities are what a plan records of the cluster its charts were
// rendered against (.Capabilities in a chart's templates). The API
// versions the cluster served are not recorded: whatever they changed in
// a chart's output is in the plan's objects, and a plan whose objects
// render differently when it is applied is stale. Recording them would
// make every CRD anyone installs stale every plan.
type Capabilities struct {
	KubeVersion string `json:"kubeVersion"` // the server's version, "v1.36.0"
}

// Same reports whether c and o are the same capabilities; two nil are the
// same.
func (c *Capabilities) Same(o *Capabilities) bool {
	if c == nil || o == nil {
		return c == o
	}
	return *c == *o
}

// Same reports whether e and o are the same environment with the same
// values, images and promotion; two nil environments are the same.
func (e *Environment) Same(o *Environment) bool {
	if e == nil || o == nil {
		return e == o
	}
	return e.Name == o.Name && e.Values == o.Values && maps.Equal(e.Images, o.Images) && e.Promoted.same(o.Promoted)
}

// same reports whether p and o promote the same images of the same run.
func (p *Promotion) same(o *Promotion) bool {
	if p == nil || o == nil {
		return p == o
	}
	return p.From == o.From && p.Revision == o.Revision && p.Plan == o.Plan && maps.Equal(p.Images, o.Images)
}

// label is " (environment NAME)", or empty for no environment; a
// promoted plan names the environment and revision its images are from.
func (e *Environment) label() string {
	if e == nil {
		return ""
	}
	if p := e.Promoted; p != nil {
		return fmt.Sprintf(" (environment %s, images of %s revision %d)", e.Name, p.From, p.Revision)
	}
	return " (environment " + e.Name + ")"
}

// Target is the cluster and namespace a plan is bound to. A plan for one
// target never applies to another.
type Target struct {
	Server     string `json:"server"`     // the API server's URL
	Context    string `json:"context"`    // the kubeconfig context
	Namespace  string `json:"namespace"`  // the release's namespace
	ClusterUID string `json:"clusterUID"` // the kube-system Namespace UID
}

// Step is one object's change.
type Step struct {
	Ref        object.Ref `json:"ref"`
	APIVersion string     `json:"apiVersion"`
	Resource   string     `json:"resource"` // plural resource name from discovery
	Stage      Stage      `json:"stage"`
	Action     Action     `json:"action"`
	Observed   Observed   `json:"observed"`
	Desired    string     `json:"desired,omitempty"` // keyed digest of Manifest
	// Manifest is what apply sends, a Secret's values replaced by keyed
	// digests; empty for a delete.
	Manifest  map[string]any `json:"manifest,omitempty"`
	DependsOn []object.Ref   `json:"dependsOn,omitempty"`
	Conflicts []Conflict     `json:"conflicts,omitempty"`
	Blocked   string         `json:"blocked,omitempty"` // why apply must refuse this plan
	Origin    string         `json:"origin,omitempty"`  // where the object was declared; not hashed
	Changes   []Change       `json:"changes,omitempty"` // not hashed
	Seal      string         `json:"seal,omitempty"`    // keyed digest of the stored step; not hashed
	// Warnings are what a person should know before approving the step
	// that does not block it. Not hashed.
	Warnings []string `json:"warnings,omitempty"`
	// NoWait, when set, says why apply writes the object without waiting
	// for it to be ready; empty means it waits (deletes never do). Hashed:
	// approving a plan approves which objects it does not wait for.
	NoWait NoWaitReason `json:"noWait,omitempty"`
	// Reclaim are the fields this release declares that other managers
	// took by an update (kubectl edit, kubectl scale, a PATCH or a PUT),
	// which applying the step takes back: apply forces ownership of the
	// object's fields, and refuses if the object changed since it was
	// planned. Planned only when asked (release.PlanOptions.Reclaim);
	// a field another manager owns by server-side apply stays a
	// conflict. Hashed: approving the plan approves taking them back.
	Reclaim []Conflict `json:"reclaim,omitempty"`
}

// Observed is what the planner saw of a step's object in the cluster. Apply
// compares it with what it sees before writing.
type Observed struct {
	Absent          bool   `json:"absent,omitempty"`
	UID             string `json:"uid,omitempty"`
	ResourceVersion string `json:"resourceVersion,omitempty"`
	Generation      int64  `json:"generation,omitempty"`
	// Fields is a keyed digest of the live values at the paths the desired
	// manifest sets: it changes when someone changes a field this plan
	// touches, and not when only status or unrelated fields churn.
	Fields string `json:"fields,omitempty"`
}

// Conflict is a field another field manager owns with a different value.
type Conflict struct {
	Manager string   `json:"manager"`
	Fields  []string `json:"fields"`
	// Operation is how the manager wrote the object, as its managedFields
	// say: OperationUpdate for an edit (kubectl edit or scale, a PATCH,
	// a PUT), OperationApply for a server-side apply; empty when the live
	// object does not say.
	Operation string `json:"operation,omitempty"`
}

// The values of Conflict.Operation, as managedFields spell them.
const (
	OperationUpdate = "Update"
	OperationApply  = "Apply"
)

// ChangeKind says how a field differs.
type ChangeKind string

// The kinds of field change.
const (
	Added   ChangeKind = "added"
	Removed ChangeKind = "removed"
	Changed ChangeKind = "changed"
)

// Change is one field that differs between the live object and the result
// of applying the desired one. Secret values are never recorded: Hidden is
// set and From/To are empty.
type Change struct {
	Path   string     `json:"path"`
	Kind   ChangeKind `json:"kind"`
	From   any        `json:"from,omitempty"`
	To     any        `json:"to,omitempty"`
	Hidden bool       `json:"hidden,omitempty"`
}

// Counts returns how many steps have each action.
func (p *Plan) Counts() map[Action]int {
	c := map[Action]int{}
	for _, s := range p.Steps {
		c[s.Action]++
	}
	return c
}

// Blocked returns the reasons apply must refuse the plan, one per blocked
// step, each prefixed by its object; none means the plan may be applied.
func (p *Plan) Blocked() []string {
	var out []string
	for _, s := range p.Steps {
		if s.Blocked != "" {
			out = append(out, s.Ref.String()+": "+s.Blocked)
		}
	}
	return out
}

// Warnings returns the warnings of every step, each prefixed by its
// object, in step order.
func (p *Plan) Warnings() []string {
	var out []string
	for _, s := range p.Steps {
		for _, w := range s.Warnings {
			out = append(out, s.Ref.String()+": "+w)
		}
	}
	return out
}

// Changed reports whether applying the plan would change anything: a step
// that is not a no-op. A plan that changes nothing still becomes a
// revision when applied.
func (p *Plan) Changed() bool {
	for _, s := range p.Steps {
		if s.Action != NoOp {
			return true
		}
	}
	return false
}
