package plan

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	pub "github.com/pynenc/piceli/plan"
)

// ComputeHash returns the plan's identity: "sha256:" and the hex SHA-256 of
// its canonical encoding without its Hash, its seals, Kept and Inputs, and its
// steps' Changes, Origins and Warnings (presentation, not content). The
// same inputs give the same hash; another target, another observation or
// another desired state gives another.
func ComputeHash(p *Plan) (string, error) {
	ms, err := manifestsOf(p)
	if err != nil {
		return "", fmt.Errorf("encode plan: %w", err)
	}
	return hashWith(p, ms)
}

// hashWith is ComputeHash with the manifests already encoded (manifestsOf).
func hashWith(p *Plan, ms []json.RawMessage) (string, error) {
	data, err := canonical(p, ms)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// canonical encodes the hashed part of p, whose manifests ms holds
// encoded. encoding/json writes struct fields in declaration order and map
// keys sorted, so equal plans encode equally.
func canonical(p *Plan, ms []json.RawMessage) ([]byte, error) {
	steps := make([]stepJSON, len(p.Steps))
	for i, s := range p.Steps {
		s.Changes, s.Origin, s.Seal, s.Warnings = nil, "", "", nil
		steps[i] = wireStep(s, ms[i])
	}
	c := wirePlan(p, steps)
	c.Hash, c.Seal, c.Kept, c.Inputs = "", "", nil, ""
	data, err := json.Marshal(&c)
	if err != nil {
		return nil, fmt.Errorf("encode plan: %w", err)
	}
	return data, nil
}

// ShortHash is the first 12 hex digits of a hash, for people (plan.ShortHash).
func ShortHash(hash string) string { return pub.ShortHash(hash) }
