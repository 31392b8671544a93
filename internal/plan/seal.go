package plan

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/pynenc/piceli/internal/digest"
)

// ErrUnsealed marks a stored plan that carries no seal: it was stored by a
// Piceli older than sealed plans, or its seal was removed. It is refused
// like an edited plan; plan again.
var ErrUnsealed = errors.New("the plan has no seal (stored by an older piceli, or edited)")

// ErrTampered marks stored plan content that does not match the plan's
// seal: the file was edited after it was planned, or the release's digest
// key was replaced since.
var ErrTampered = errors.New("edited since it was planned, or the digest key changed")

// sealInfo names what the seal key is derived for.
const sealInfo = "piceli plan seal v1"

// sealer seals stored plans and checks their seals. The hash a user
// approves is an unkeyed SHA-256 that anyone can recompute after editing a
// plan; a seal is keyed, so only a holder of the release's digest key can
// make one.
type sealer struct {
	key []byte   // derived from the digest key, used for nothing else
	dig Digester // the digest key itself, to check Desired digests
}

// newSealer derives the seal key from the release's digest key
// (digest.SealKey says why a derived key).
func newSealer(digestKey []byte) (sealer, error) {
	key, err := digest.SealKey(digestKey, sealInfo)
	if err != nil {
		return sealer{}, err
	}
	return sealer{key: key, dig: Digester{Key: digestKey}}, nil
}

// of returns the keyed digest of v's JSON encoding under the seal key. A
// plan that ComputeHash could encode always encodes.
func (s sealer) of(v any) string {
	seal, _ := digest.Seal(s.key, v)
	return seal
}

// stepSeal covers every field of a step but its seal, Changes and Origin
// included: what a plan shows people is sealed as much as what it applies.
// m is the step's manifest, encoded (manifestsOf).
func (s sealer) stepSeal(st Step, m json.RawMessage) string {
	st.Seal = ""
	return s.of(wireStep(st, m))
}

// planSeal covers every field of a plan but its hash and its own seal; the
// steps enter with their seals, so it also covers their order and count.
func (s sealer) planSeal(p *Plan, ms []json.RawMessage) string {
	c := wired(p, ms)
	c.Hash, c.Seal = "", ""
	return s.of(&c)
}

// seal sets the seal of every step of p, then p's; ms holds p's manifests
// encoded.
func (s sealer) seal(p *Plan, ms []json.RawMessage) {
	for i := range p.Steps {
		p.Steps[i].Seal = s.stepSeal(p.Steps[i], ms[i])
	}
	p.Seal = s.planSeal(p, ms)
}

// verify checks p against its seals: each step's (an error per step that
// fails, naming it), each step's manifest against its Desired digest, and
// the plan's own for the rest; ms holds p's manifests encoded. It returns
// ErrUnsealed for a plan with no seal, and errors wrapping ErrTampered
// otherwise.
func (s sealer) verify(p *Plan, ms []json.RawMessage) error {
	if p.Seal == "" {
		return ErrUnsealed
	}
	var errs []error
	for i, st := range p.Steps {
		if err := s.verifyStep(st, ms[i]); err != nil {
			errs = append(errs, fmt.Errorf("step %d %s: %w", i, st.Ref, err))
		}
	}
	if len(errs) == 0 && !equal(p.Seal, s.planSeal(p, ms)) {
		errs = append(errs, fmt.Errorf("its release, target, waves or order of steps do not match its seal: %w", ErrTampered))
	}
	return errors.Join(errs...)
}

// verifyStep checks one step's seal, and that its manifest (m, encoded) is
// the one its Desired digest (what apply compares with a fresh plan)
// stands for: history records the manifest, the engine writes what digests
// to Desired. The digest is Digester.Of's, of the same encoding.
func (s sealer) verifyStep(st Step, m json.RawMessage) error {
	switch {
	case !equal(st.Seal, s.stepSeal(st, m)):
		return fmt.Errorf("content does not match its seal: %w", ErrTampered)
	case st.Desired != "" && !equal(st.Desired, s.desiredOf(st, m)):
		return fmt.Errorf("manifest does not match its desired digest: %w", ErrTampered)
	}
	return nil
}

// desiredMatch reports whether every step's manifest (ms, encoded) is the
// one its Desired digest stands for, as verifyStep checks it.
func (s sealer) desiredMatch(p *Plan, ms []json.RawMessage) bool {
	for i, st := range p.Steps {
		if st.Desired != "" && !equal(st.Desired, s.desiredOf(st, ms[i])) {
			return false
		}
	}
	return true
}

// desiredOf is Digester.Of of st's manifest, m encoded.
func (s sealer) desiredOf(st Step, m json.RawMessage) string {
	if m == nil { // an empty or nil map: Of encodes it as {} or null
		return s.dig.Of(st.Manifest)
	}
	return s.dig.digestOf(m)
}

// equal compares two digests in constant time.
func equal(a, b string) bool { return digest.Equal(a, b) }
