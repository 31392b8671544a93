package controller

import (
	"context"
	"encoding/json"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/pynenc/piceli/api/v1alpha1"
	"github.com/pynenc/piceli/refusal"
)

// SyncSchema versions the document `piceli controller sync -o json`
// prints.
const SyncSchema = "piceli.controller-sync/v1"

// SyncRequest is a sync written into a Release.
type SyncRequest struct {
	Schema    string `json:"schema"` // SyncSchema
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// At is the value written into the SyncAnnotation.
	At string `json:"at"`
}

// Sync asks the controller to try the Release's latest revision again
// now, even one whose runs failed or whose checks failed: it writes the
// time into the Release's v1alpha1.SyncAnnotation. Nothing else changes; a
// plan still needs its approval. An unknown Release is a refusal.
func Sync(ctx context.Context, c client.Client, key types.NamespacedName) (*SyncRequest, error) {
	var rel v1alpha1.Release
	if err := c.Get(ctx, key, &rel); err != nil {
		if client.IgnoreNotFound(err) == nil {
			return nil, refusal.Errorf("release %s not found", key)
		}
		return nil, err
	}
	at := time.Now().UTC().Format(time.RFC3339Nano)
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{v1alpha1.SyncAnnotation: at}}})
	if err != nil {
		return nil, err
	}
	if err := c.Patch(ctx, &rel, client.RawPatch(types.MergePatchType, patch)); err != nil {
		return nil, err
	}
	return &SyncRequest{Schema: SyncSchema, Namespace: key.Namespace, Name: key.Name, At: at}, nil
}
