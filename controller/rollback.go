package controller

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/user"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/pynenc/piceli/api/v1alpha1"
	"github.com/pynenc/piceli/refusal"
)

// The schemas of the documents `piceli controller rollback -o json` and
// `piceli controller unpin -o json` print.
const (
	RollbackSchema = "piceli.controller-rollback/v1"
	UnpinSchema    = "piceli.controller-unpin/v1"
)

// RollbackOptions tune Rollback. The zero value is valid.
type RollbackOptions struct {
	// Reason is written into the pin, for everyone who reads the Release.
	Reason string
	// By says who pins; empty means user@host of this process.
	By string
}

// RollbackRequest is a pin written into a Release.
type RollbackRequest struct {
	Schema    string `json:"schema"` // RollbackSchema
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Revision is the source revision now in spec.pin.
	Revision string `json:"revision"`
	// Latest is the source's latest revision the pin holds back, as the
	// status last showed it.
	Latest string `json:"latestRevision,omitempty"`
	// Replaced is the revision of the pin this one replaced, if any.
	Replaced string `json:"replaced,omitempty"`
	By       string `json:"by"`
	Reason   string `json:"reason,omitempty"`
}

// Rollback pins the Release key to a source revision it ran before, by
// writing spec.pin. to names the revision as the Release's status shows
// it (status.appliedRevision, or status.runs[].sourceRevision): the whole
// REF@ID, the ID, or the first 12 or more hex digits of the ID. A to that
// names no revision the Release ran, or more than one, is a refusal
// (refusal.Is) with nothing written.
//
// The write also clears spec.approve, so that no approval given before
// the pin can end it: the controller plans the pinned revision and applies
// it once its plan is approved (by hash, or by the policy), then holds the
// Release there; newer revisions are planned and shown, not applied, until
// Unpin or the approval of a newer plan's hash.
func Rollback(ctx context.Context, c client.Client, key types.NamespacedName, to string, opts RollbackOptions) (*RollbackRequest, error) {
	if len(opts.Reason) > 1024 {
		return nil, refusal.Errorf("the reason is %d bytes; at most 1024", len(opts.Reason))
	}
	rel, err := getRelease(ctx, c, key)
	if err != nil {
		return nil, err
	}
	rev, err := ranRevision(rel, to)
	if err != nil {
		return nil, err
	}
	by := opts.By
	if by == "" {
		by = whoAmI()
	}
	pin := v1alpha1.Pin{Revision: rev, Reason: opts.Reason, By: bound(by, 256), At: metav1.NewTime(time.Now().UTC().Truncate(time.Second))}
	patch, err := json.Marshal(map[string]any{"spec": map[string]any{"pin": pin, "approve": nil}})
	if err != nil {
		return nil, err
	}
	// The write is conditional on the version read: a pin is never written
	// over a Release that changed since its revisions were read.
	base := rel.DeepCopy()
	if err := c.Patch(ctx, base, client.RawPatch(types.MergePatchType, withVersion(patch, rel.ResourceVersion))); err != nil {
		return nil, err
	}
	out := &RollbackRequest{Schema: RollbackSchema, Namespace: key.Namespace, Name: key.Name, Revision: rev, Latest: rel.Status.SourceRevision, By: pin.By, Reason: pin.Reason}
	if rel.Spec.Pin != nil {
		out.Replaced = rel.Spec.Pin.Revision
	}
	return out, nil
}

// UnpinRequest is a pin removed from a Release.
type UnpinRequest struct {
	Schema    string `json:"schema"` // UnpinSchema
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Revision is the revision the removed pin held.
	Revision string `json:"revision"`
	// Latest is the source's latest revision, which the controller now
	// plans and applies as usual, as the status last showed it.
	Latest string `json:"latestRevision,omitempty"`
}

// Unpin removes the Release's spec.pin: the controller goes back to
// planning and applying the source's latest revision (each plan approved
// as usual). A Release that is not pinned is a refusal with nothing
// written.
func Unpin(ctx context.Context, c client.Client, key types.NamespacedName) (*UnpinRequest, error) {
	rel, err := getRelease(ctx, c, key)
	if err != nil {
		return nil, err
	}
	if rel.Spec.Pin == nil {
		return nil, refusal.Errorf("release %s is not pinned", key)
	}
	if err := dropPin(ctx, c, key, rel.Spec.Pin.Revision); err != nil {
		return nil, err
	}
	return &UnpinRequest{Schema: UnpinSchema, Namespace: key.Namespace, Name: key.Name, Revision: rel.Spec.Pin.Revision, Latest: rel.Status.SourceRevision}, nil
}

// getRelease reads the Release key; one that does not exist is a refusal.
func getRelease(ctx context.Context, c client.Client, key types.NamespacedName) (*v1alpha1.Release, error) {
	var rel v1alpha1.Release
	if err := c.Get(ctx, key, &rel); err != nil {
		if client.IgnoreNotFound(err) == nil {
			return nil, refusal.Errorf("release %s not found", key)
		}
		return nil, err
	}
	return &rel, nil
}

// ranRevisions are the source revisions rel ran, newest first, each once.
func ranRevisions(rel *v1alpha1.Release) []string {
	var out []string
	add := func(s string) {
		if s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	add(rel.Status.AppliedRevision)
	for _, run := range rel.Status.Runs {
		add(run.SourceRevision)
	}
	return out
}

// ranRevision is the one revision rel ran that to names.
func ranRevision(rel *v1alpha1.Release, to string) (string, error) {
	key := rel.Namespace + "/" + rel.Name
	to = strings.TrimSpace(to)
	if to == "" || len(to) > 256 {
		return "", refusal.Errorf("--to names no revision: give a source revision release %s ran (piceli controller status %s lists them)", key, key)
	}
	ran := ranRevisions(rel)
	var found []string
	for _, s := range ran {
		rev, err := ParseRevision(s)
		if err != nil {
			continue
		}
		hexID := strings.TrimPrefix(rev.ID, "sha256:")
		given := strings.TrimPrefix(to, "sha256:")
		if s == to || rev.ID == to || (len(given) >= 12 && strings.HasPrefix(hexID, given)) {
			found = append(found, s)
		}
	}
	switch {
	case len(found) == 1:
		return found[0], nil
	case len(found) > 1:
		return "", refusal.Errorf("%q names more than one revision release %s ran: %s; give more of it", bound(to, 64), key, strings.Join(found, ", "))
	case len(ran) == 0:
		return "", refusal.Errorf("release %s has run no revision yet, so there is none to roll back to", key)
	}
	return "", refusal.Errorf("release %s never ran %q; the revisions it ran are: %s", key, bound(to, 64), strings.Join(ran, ", "))
}

// withVersion adds metadata.resourceVersion to a merge patch, making it
// conditional on that version.
func withVersion(patch []byte, version string) []byte {
	var m map[string]any
	if json.Unmarshal(patch, &m) != nil {
		return patch
	}
	m["metadata"] = map[string]any{"resourceVersion": version}
	out, err := json.Marshal(m)
	if err != nil {
		return patch
	}
	return out
}

// whoAmI is user@host of this process.
func whoAmI() string {
	name := os.Getenv("USER")
	if u, err := user.Current(); err == nil && u.Username != "" {
		name = u.Username
	}
	host, _ := os.Hostname()
	return fmt.Sprintf("%s@%s", name, host)
}
