package plan

import (
	"encoding/json"

	"github.com/pynenc/piceli/internal/graph"
	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/objjson"
)

// A plan is encoded several times over: for its hash, for each step's seal
// and Desired digest, and for its own seal. Manifests are most of those
// bytes, so each is encoded once (manifestsOf) and the encodings are built
// from planJSON and stepJSON, which mirror Plan and Step with the manifest
// already encoded. encoding/json writes a json.RawMessage as it is
// (compacted, HTML characters escaped, as json.Marshal already left it),
// so a plan encodes to the very bytes it would through Plan and Step; the
// tests hold the mirrors to the types they mirror.

// planJSON is Plan with its steps' manifests encoded.
type planJSON struct {
	Schema       string        `json:"schema"`
	Hash         string        `json:"hash,omitempty"`
	Seal         string        `json:"seal,omitempty"`
	Release      Release       `json:"release"`
	Target       Target        `json:"target"`
	Environment  *Environment  `json:"environment,omitempty"`
	Capabilities *Capabilities `json:"capabilities,omitempty"`
	Namespaces   []string      `json:"namespaces,omitempty"`
	Steps        []stepJSON    `json:"steps"`
	Waves        []graph.Wave  `json:"waves"`
	Kept         []Kept        `json:"kept,omitempty"`
	Inputs       string        `json:"inputs,omitempty"`
}

// stepJSON is Step with its manifest encoded.
type stepJSON struct {
	Ref        object.Ref      `json:"ref"`
	APIVersion string          `json:"apiVersion"`
	Resource   string          `json:"resource"`
	Stage      graph.Stage     `json:"stage"`
	Action     Action          `json:"action"`
	Observed   Observed        `json:"observed"`
	Desired    string          `json:"desired,omitempty"`
	Manifest   json.RawMessage `json:"manifest,omitempty"`
	DependsOn  []object.Ref    `json:"dependsOn,omitempty"`
	Conflicts  []Conflict      `json:"conflicts,omitempty"`
	Blocked    string          `json:"blocked,omitempty"`
	Origin     string          `json:"origin,omitempty"`
	Changes    []Change        `json:"changes,omitempty"`
	Seal       string          `json:"seal,omitempty"`
	Warnings   []string        `json:"warnings,omitempty"`
	NoWait     NoWaitReason    `json:"noWait,omitempty"`
	Reclaim    []Conflict      `json:"reclaim,omitempty"`
}

// manifestsOf encodes the manifest of each step of p, nil for a step
// without one (omitted, as an empty map is).
func manifestsOf(p *Plan) ([]json.RawMessage, error) {
	out := make([]json.RawMessage, len(p.Steps))
	for i, s := range p.Steps {
		if len(s.Manifest) == 0 {
			continue
		}
		data, err := objjson.Marshal(s.Manifest)
		if err != nil {
			return nil, err
		}
		out[i] = data
	}
	return out, nil
}

// wireStep is s with its manifest m, encoded by manifestsOf.
func wireStep(s Step, m json.RawMessage) stepJSON {
	return stepJSON{
		Ref: s.Ref, APIVersion: s.APIVersion, Resource: s.Resource, Stage: s.Stage, Action: s.Action,
		Observed: s.Observed, Desired: s.Desired, Manifest: m, DependsOn: s.DependsOn, Conflicts: s.Conflicts,
		Blocked: s.Blocked, Origin: s.Origin, Changes: s.Changes, Seal: s.Seal, Warnings: s.Warnings, NoWait: s.NoWait,
		Reclaim: s.Reclaim,
	}
}

// wirePlan is p with the given steps.
func wirePlan(p *Plan, steps []stepJSON) planJSON {
	return planJSON{
		Schema: p.Schema, Hash: p.Hash, Seal: p.Seal, Release: p.Release, Target: p.Target,
		Environment: p.Environment, Capabilities: p.Capabilities, Namespaces: p.Namespaces, Steps: steps, Waves: p.Waves, Kept: p.Kept,
		Inputs: p.Inputs,
	}
}

// wired is p whole, its manifests ms encoded (manifestsOf): it encodes as
// p does.
func wired(p *Plan, ms []json.RawMessage) planJSON {
	steps := make([]stepJSON, len(p.Steps))
	for i, s := range p.Steps {
		steps[i] = wireStep(s, ms[i])
	}
	return wirePlan(p, steps)
}
