package controller_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/pynenc/piceli/api/v1alpha1"
	"github.com/pynenc/piceli/controller/source"
	"github.com/pynenc/piceli/internal/sandbox/sandboxtest"
	"github.com/pynenc/piceli/publish"
	"github.com/pynenc/piceli/wire"
)

// artifactSource serves one published release, built from content.
type artifactSource struct{ a *publish.Artifact }

func newArtifactSource(t *testing.T, c *publish.Content) *artifactSource {
	t.Helper()
	a, err := publish.Build(c)
	if err != nil {
		t.Fatal(err)
	}
	return &artifactSource{a: a}
}

func (s *artifactSource) Resolve(context.Context) (source.Revision, error) {
	return source.Revision{ID: s.a.Digest, Ref: "v1"}, nil
}

func (s *artifactSource) Fetch(_ context.Context, rev source.Revision, dir string) (*source.Content, error) {
	return &source.Content{Revision: rev, Artifact: dir}, publish.WriteLayout(dir, s.a, "v1")
}

// secretContent is a release app in ns of one ConfigMap and a Secret db
// whose keys come from keys.
func secretContent(ns string, keys ...wire.SecretKeyInfo) *publish.Content {
	objs := []*unstructured.Unstructured{
		{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "settings", "namespace": ns}, "data": map[string]any{"a": "1"}}},
		{Object: map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "db", "namespace": ns}}},
	}
	c := &publish.Content{Manifests: objs, Metadata: publish.Metadata{
		Schema: publish.MetadataSchema, Release: "app", Namespace: ns, Wait: "ready",
		Secrets: []wire.SecretInfo{{Name: "db", Keys: keys}},
	}}
	for i, u := range objs {
		c.Metadata.Objects = append(c.Metadata.Objects, publish.ObjectInfo{
			File: fmt.Sprintf("%03d-%s-%s-%s.yaml", i, strings.ToLower(u.GetKind()), ns, u.GetName()), Ref: u.GetKind() + "/" + ns + "/" + u.GetName(), Origin: "test",
		})
	}
	return c
}

func TestSecurityControllerStatusEventsLogsAndMetricsHoldNoSecret(t *testing.T) {
	h := startController(t, 0)
	ns := h.ns
	h.grantDeployer(t, ns, nil)
	ctx := sandboxtest.Context(t, 2*time.Minute)
	canary := "ctl-canary-" + randomHex(t) + `-"q&r/s+t<u>`
	legacy := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "legacy", Namespace: ns}, Data: map[string][]byte{"password": []byte(canary)}}
	if err := h.client.Create(ctx, legacy); err != nil {
		t.Fatal(err)
	}
	src := newArtifactSource(t, secretContent(ns,
		wire.SecretKeyInfo{Key: "password", Source: wire.SourceCluster, Ref: "legacy/password"},
		wire.SecretKeyInfo{Key: "token", Source: wire.SourceGenerated, Length: 32}))
	h.setSource(src)
	h.createRelease(t, ns, "app", v1alpha1.ReleaseSpec{Policy: &v1alpha1.Policy{Actions: []string{"create", "update"}}})
	h.waitFor(t, ns, "app", "the release is applied", func(r *v1alpha1.Release) bool { return r.Status.State == v1alpha1.StateReady })

	var db corev1.Secret
	if err := h.client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "db"}, &db); err != nil || string(db.Data["password"]) != canary {
		t.Fatalf("Secret db: %v, %q; want the value imported from Secret legacy", err, db.Data["password"])
	}
	generated := string(db.Data["token"])
	if len(generated) != 32 {
		t.Fatalf("Secret db's generated token has %d bytes; want 32", len(generated))
	}
	rel := h.release(t, ns, "app")
	status, _ := json.Marshal(rel)
	var events eventsv1.EventList
	if err := h.client.List(ctx, &events, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	eventsJSON, _ := json.Marshal(events)
	families, err := ctrlmetrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := json.Marshal(families)
	for what, data := range map[string][]byte{"status": status, "events": eventsJSON, "log": []byte(h.log.String()), "metrics": metrics} {
		for name, value := range map[string]string{"imported": canary, "generated": generated} {
			if found := leaks(data, value); len(found) > 0 {
				t.Errorf("the %s secret value is in the controller's %s, as %v", name, what, found)
			}
		}
	}
	if len(events.Items) == 0 || !bytes.Contains(status, []byte("Applied")) {
		t.Fatalf("the sweep saw no event (%d) or no applied status; it proves nothing", len(events.Items))
	}
}

func TestMachineSecretSourcesAreRefusedInTheCluster(t *testing.T) {
	for _, tc := range []struct {
		key  wire.SecretKeyInfo
		word string
	}{
		{wire.SecretKeyInfo{Key: "password", Source: wire.SourceFile, Ref: "secrets/password"}, "a file"},
		{wire.SecretKeyInfo{Key: "password", Source: wire.SourceEnv, Ref: "DB_PASSWORD"}, "an environment variable"},
	} {
		t.Run(tc.key.Source, func(t *testing.T) {
			h := startController(t, 0)
			ns := h.ns
			h.grantDeployer(t, ns, nil)
			h.setSource(newArtifactSource(t, secretContent(ns, tc.key)))
			h.createRelease(t, ns, "app", v1alpha1.ReleaseSpec{Policy: &v1alpha1.Policy{Actions: []string{"create"}}})
			rel := h.waitFor(t, ns, "app", "the Release is stalled", func(r *v1alpha1.Release) bool { return r.Status.State == v1alpha1.StateStalled })
			if msg := stalledMessage(rel); !strings.Contains(msg, "secret db key password comes from "+tc.word+" on the operator's machine") {
				t.Fatalf("stalled for %q", msg)
			}
			if _, ok := h.configMap(t, ns, "settings"); ok {
				t.Fatal("the release was applied although one of its secrets cannot be resolved")
			}
		})
	}
}

func randomHex(t *testing.T) string {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// leaks names the encodings of canary found in data: raw, hex, URL- and
// JSON-escaped, and base64 at the three alignments.
func leaks(data []byte, canary string) []string {
	quoted, _ := json.Marshal(canary)
	forms := map[string]string{
		"raw": canary, "hex": hex.EncodeToString([]byte(canary)), "url": url.QueryEscape(canary),
		"path": url.PathEscape(canary), "json": strings.Trim(string(quoted), `"`),
	}
	for shift := range 3 {
		enc := base64.StdEncoding.EncodeToString(append(bytes.Repeat([]byte{0}, shift), canary...))
		forms[fmt.Sprintf("base64+%d", shift)] = enc[4 : len(enc)-4]
	}
	var found []string
	for name, form := range forms {
		if bytes.Contains(data, []byte(form)) {
			found = append(found, name)
		}
	}
	return found
}
