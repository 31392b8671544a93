package apply

import (
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/pynenc/piceli/internal/digest"
	"github.com/pynenc/piceli/internal/journal"
	"github.com/pynenc/piceli/internal/object"
	"github.com/pynenc/piceli/internal/parallel"
	"github.com/pynenc/piceli/internal/plan"
)

// StaleError refuses an approved plan that no longer matches the composition
// or the cluster. Nothing has been written when it is returned.
type StaleError struct {
	Hash    string
	Reasons []string
}

func (e *StaleError) Error() string {
	return fmt.Sprintf("plan %s is stale, nothing was applied; plan again and approve the new hash:\n  %s", plan.ShortHash(e.Hash), strings.Join(e.Reasons, "\n  "))
}

// BlockedError refuses a plan with blocked steps (conflicts, refused
// replaces).
type BlockedError struct{ Reasons []string }

func (e *BlockedError) Error() string {
	return "the plan cannot be applied:\n  " + strings.Join(e.Reasons, "\n  ")
}

// Approve checks that the approved plan may run now: it is not blocked and a
// fresh plan of the same inputs, made just now, agrees with it on every
// step (plan.Stale). When only some steps remain (a resume), only those are
// compared.
func Approve(approved, fresh *plan.Plan, only map[object.Ref]bool) error {
	if b := approved.Blocked(); len(b) > 0 {
		return &BlockedError{Reasons: b}
	}
	a, f := approved, fresh
	if only != nil {
		a, f = subset(approved, only), subset(fresh, only)
	}
	if reasons := plan.Stale(a, f); len(reasons) > 0 {
		return &StaleError{Hash: approved.Hash, Reasons: reasons}
	}
	return nil
}

func subset(p *plan.Plan, only map[object.Ref]bool) *plan.Plan {
	c := *p
	c.Steps = nil
	for _, s := range p.Steps {
		if only[s.Ref] {
			c.Steps = append(c.Steps, s)
		}
	}
	return &c
}

// NewInput assembles an engine input from an approved plan, the rendered
// objects and a fresh plan's observations.
func NewInput(approved, fresh *plan.Plan, rendered []*unstructured.Unstructured, key []byte, source string) Input {
	in := Input{Plan: approved, Desired: map[object.Ref]*unstructured.Unstructured{}, Fresh: map[object.Ref]string{}, Key: key, Source: source}
	for _, o := range rendered {
		in.Desired[object.RefOf(o)] = o
	}
	for _, s := range fresh.Steps {
		in.Fresh[s.Ref] = s.Observed.ResourceVersion
	}
	return in
}

// ErrNotApproved is matched by the error of a run refused because an
// object it would write is not the one its approved plan sealed.
var ErrNotApproved = errors.New("not what the approved plan holds")

// CheckDesired refuses an input whose objects are not those its approved
// plan sealed: every step's object to write (Input.Desired, or the step's
// own manifest) must digest to the step's Desired, Secret values compared
// as keyed digests. Apply's approval check compares every step with a
// fresh plan, but a resume compares only the steps its journal says are
// untouched: one the journal says is in doubt is settled by reading the
// cluster and, when its write did not land, written again. So a journal
// edited to mark a step in doubt, or a composition changed since the
// crash, could otherwise have a resume write something no one approved.
// Nothing is written or journaled when it fails.
func CheckDesired(in Input) error {
	dig := plan.Digester{Key: in.Key}
	errs := make([]error, len(in.Plan.Steps)) // by step, so they keep the plan's order
	parallel.Each(len(in.Plan.Steps), 64, func(i int) {
		s := in.Plan.Steps[i]
		if s.Desired == "" {
			return // a delete: nothing is written
		}
		desired := in.Desired[s.Ref]
		if desired == nil {
			desired = &unstructured.Unstructured{Object: s.Manifest}
		}
		if dig.OfSealed(desired) != s.Desired {
			errs[i] = fmt.Errorf("%s: the object to write is %w (the composition or the state changed since the approval)", s.Ref, ErrNotApproved)
		}
	})
	if errs = slices.DeleteFunc(errs, func(err error) bool { return err == nil }); len(errs) > 0 {
		return fmt.Errorf("run of plan %s refused, nothing was written: %w", plan.ShortHash(in.Plan.Hash), errors.Join(errs...))
	}
	return nil
}

// runSealInfo names what the run seal key is derived for.
const runSealInfo = "piceli run seal v1"

// runSeal is the seal of a run's start: a keyed digest, under a key
// derived from the release's digest key, of the run id and the hash of the
// plan it was approved to apply.
func runSeal(key []byte, run, planHash string) string {
	k, err := hkdf.Key(sha256.New, key, nil, runSealInfo, sha256.Size)
	if err != nil {
		return ""
	}
	return digest.Fields(k, []byte(run), []byte(planHash))
}

// checkRunSeal refuses to resume a run whose journal's first record does
// not carry the seal of its run and plan: the journal was edited (to name
// another stored plan, which no one approved for this run) or written by
// a Piceli older than sealed runs. Nothing is written when it fails.
func checkRunSeal(start journal.Record, key []byte) error {
	want := runSeal(key, start.Run, start.Plan)
	if want == "" || !hmac.Equal([]byte(want), []byte(start.Seal)) {
		return fmt.Errorf("resume run %s: its journal's start does not carry the seal of run %s and plan %s (edited, or started by an older piceli), so nothing shows the plan was approved for it; plan again and approve: %w",
			start.Run, start.Run, plan.ShortHash(start.Plan), ErrNotApproved)
	}
	return nil
}
