package history

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/pynenc/piceli/internal/object"
)

// testKey is the digest key the history tests seal revisions with.
var testKey = []byte("0123456789abcdef0123456789abcdef")

// A revision file edited after it was recorded (an object added, a
// manifest changed, a secret version moved) or stripped of its seal fails
// Verify, as does one checked with another release's key; the revision as
// recorded passes.
func TestVerify(t *testing.T) {
	dir := t.TempDir()
	r := revision(1, 2)
	r.Secrets = map[string]int{"db": 1}
	if _, err := Add(dir, testKey, r); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		edit func(r *Revision)
		key  []byte
		want error // nil: verifies
	}{
		{name: "the revision as recorded verifies", edit: func(*Revision) {}, want: nil},
		{name: "an object added by hand fails", edit: func(r *Revision) {
			r.Objects = append(r.Objects, Object{Ref: object.Ref{Group: "rbac.authorization.k8s.io", Kind: "ClusterRoleBinding", Name: "pwn"}, APIVersion: "rbac.authorization.k8s.io/v1", Resource: "clusterrolebindings",
				Manifest: map[string]any{"kind": "ClusterRoleBinding", "roleRef": map[string]any{"name": "cluster-admin"}}})
		}, want: ErrTampered},
		{name: "a manifest changed by hand fails", edit: func(r *Revision) { r.Objects[0].Manifest["data"] = map[string]any{"k": "forged"} }, want: ErrTampered},
		{name: "a secret version moved by hand fails", edit: func(r *Revision) { r.Secrets["db"] = 2 }, want: ErrTampered},
		{name: "a removed seal fails", edit: func(r *Revision) { r.Seal = "" }, want: ErrUnsealed},
		{name: "another key fails", edit: func(*Revision) {}, key: []byte("another release's digest key...."), want: ErrTampered},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := edited(t, dir, tt.edit)
			key := testKey
			if tt.key != nil {
				key = tt.key
			}
			err := got.Verify(key)
			if (tt.want == nil) != (err == nil) || tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("Verify() = %v, want %v", err, tt.want)
			}
		})
	}
}

// edited loads revision 1, applies edit to it as a person editing the file
// would (through its JSON), and returns what Load then reads.
func edited(t *testing.T, dir string, edit func(*Revision)) *Revision {
	t.Helper()
	r, err := Load(dir, 1)
	if err != nil {
		t.Fatal(err)
	}
	edit(r)
	data, _ := json.Marshal(r)
	other := t.TempDir()
	if err := os.MkdirAll(filepath.Join(other, "history"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file(other, 1), data, 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := Load(other, 1)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestStoredRevisionIsItsJSON: Add encodes a revision once, for its
// seal and its file (sealed); the file is still exactly the revision's
// JSON, seal included, and its seal verifies. A field added after
// Seal, or a Seal no longer left out when empty, fails here.
func TestStoredRevisionIsItsJSON(t *testing.T) {
	dir := t.TempDir()
	r := revision(1, 3)
	r.Source, r.Unchanged = "rollback to 1", true
	r.Secrets = map[string]int{"db": 2, `quo"te`: 1}
	r.Checks = &Checks{Skipped: true, Reason: "asked <not> to & run"}
	n, err := Add(dir, testKey, r)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(file(dir, n))
	if err != nil {
		t.Fatal(err)
	}
	got, err := Load(dir, n)
	if err != nil {
		t.Fatal(err)
	}
	if err := got.Verify(testKey); err != nil {
		t.Fatalf("Verify() = %v", err)
	}
	want, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != string(want)+"\n" {
		t.Errorf("revision file:\n%s\nwant the revision's JSON:\n%s", data, want)
	}
}
