package plan

import "fmt"

// Stage is one apply stage. Stages are persisted and printed by name.
type Stage string

// The stages in apply order. Objects of one stage may be applied in
// parallel; a stage waits for the readiness of the one before it.
const (
	StageNamespaces Stage = "namespaces" // Namespaces and CustomResourceDefinitions
	StageIdentity   Stage = "identity"   // ServiceAccounts and RBAC
	StageConfig     Stage = "config"     // ConfigMaps and Secrets
	StageStorage    Stage = "storage"    // volumes, claims and storage classes
	StageServices   Stage = "services"   // Services
	StageWorkloads  Stage = "workloads"  // Deployments, StatefulSets, Jobs, ...
	StageCustom     Stage = "custom"     // kinds Piceli has no rule for, such as custom resources
	StagePolicies   Stage = "policies"   // autoscalers, budgets, ingress and network policies
	StagePrune      Stage = "prune"      // deletes of objects a release no longer declares
)

// Order lists every stage in apply order.
var Order = []Stage{StageNamespaces, StageIdentity, StageConfig, StageStorage, StageServices, StageWorkloads, StageCustom, StagePolicies, StagePrune}

// Rank is the position of a stage in Order, for sorting; a stage not in
// Order ranks last.
func (s Stage) Rank() int {
	for i, o := range Order {
		if o == s {
			return i
		}
	}
	return len(Order)
}

// Wave is a group of steps applied together: every step's stage and
// dependencies are satisfied by earlier waves. A wave is named after the
// stage of its first step.
type Wave struct {
	Stage Stage `json:"stage"`
	Nodes []int `json:"nodes"` // indexes into the plan's Steps
}

// String names a wave for people: its stage and how many steps it holds.
func (w Wave) String() string { return fmt.Sprintf("%s (%d)", w.Stage, len(w.Nodes)) }
