package controller

import (
	"context"
	"encoding/json"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/pynenc/piceli/api/v1alpha1"
	"github.com/pynenc/piceli/refusal"
	"github.com/pynenc/piceli/release"
)

// ApprovalSchema versions the document `piceli controller approve -o json`
// prints.
const ApprovalSchema = "piceli.controller-approval/v1"

// Approval is an approval written into a Release.
type Approval struct {
	Schema    string `json:"schema"` // ApprovalSchema
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Plan      string `json:"plan"`           // the full hash now in spec.approve
	Source    string `json:"sourceRevision"` // the revision the plan is of
}

// Approve approves the plan the Release key shows in its status, by
// writing its hash into spec.approve. hash is the full hash or its first 12
// to 64 hex digits, as `release apply --approve` takes it; a hash that is
// not the status's current plan is refused (refusal.Is) with nothing
// written, so an approval never lands on a plan nobody saw. The controller
// then applies exactly that plan, if it is still what the source and the
// cluster give.
func Approve(ctx context.Context, c client.Client, key types.NamespacedName, hash string) (*Approval, error) {
	if err := release.CheckApproval(hash); err != nil {
		return nil, err
	}
	var rel v1alpha1.Release
	if err := c.Get(ctx, key, &rel); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, refusal.Errorf("release %s not found", key)
		}
		return nil, err
	}
	p := rel.Status.Plan
	if p == nil || p.Hash == "" {
		return nil, refusal.Errorf("release %s has no plan yet; wait for the controller to plan it", key)
	}
	if !matches(p.Hash, hash) {
		return nil, refusal.Errorf("release %s waits on plan %s, not %s: approve the plan its status shows (piceli controller status %s)", key, p.Hash, hash, key)
	}
	patch, err := json.Marshal(map[string]any{"spec": map[string]any{"approve": p.Hash}})
	if err != nil {
		return nil, err
	}
	if err := c.Patch(ctx, &rel, client.RawPatch(types.MergePatchType, patch)); err != nil {
		return nil, err
	}
	return &Approval{Schema: ApprovalSchema, Namespace: key.Namespace, Name: key.Name, Plan: p.Hash, Source: p.SourceRevision}, nil
}

// matches says whether given names full: equal, or a prefix of its hex.
func matches(full, given string) bool {
	if full == given {
		return true
	}
	hexOf := strings.TrimPrefix(full, "sha256:")
	g := strings.TrimPrefix(given, "sha256:")
	return len(g) >= 12 && strings.HasPrefix(hexOf, g)
}

// ParseName splits NAMESPACE/NAME, refusing anything else.
func ParseName(s string) (types.NamespacedName, error) {
	ns, name, ok := strings.Cut(s, "/")
	if !ok || ns == "" || name == "" || strings.Contains(name, "/") {
		return types.NamespacedName{}, refusal.Errorf("%q is not NAMESPACE/NAME", s)
	}
	return types.NamespacedName{Namespace: ns, Name: name}, nil
}
