package plan

import pub "github.com/pynenc/piceli/plan"

// Schema versions the plan document.
const Schema = pub.Schema

// The plan document's types live in the public package plan, where users
// read them; the planner, the store and the engine use them through these
// names.
type (
	Action  = pub.Action
	Plan    = pub.Plan
	Release = pub.Release
	Target  = pub.Target
	// Environment is pub.Environment.
	Environment = pub.Environment
	// Promotion is pub.Promotion.
	Promotion = pub.Promotion
	// Capabilities is pub.Capabilities.
	Capabilities = pub.Capabilities
	Step         = pub.Step
	Observed     = pub.Observed
	Conflict     = pub.Conflict
	ChangeKind   = pub.ChangeKind
	Change       = pub.Change
)

// The actions of a step.
const (
	Create  = pub.Create
	Update  = pub.Update
	NoOp    = pub.NoOp
	Adopt   = pub.Adopt
	Replace = pub.Replace
	Delete  = pub.Delete
)

// The kinds of field change.
const (
	Added   = pub.Added
	Removed = pub.Removed
	Changed = pub.Changed
)

// The operations of a conflict's manager.
const (
	OperationUpdate = pub.OperationUpdate
	OperationApply  = pub.OperationApply
)
