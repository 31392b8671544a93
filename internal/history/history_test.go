package history

import (
	"errors"
	"os"
	"testing"

	"github.com/pynenc/piceli/internal/object"
)

func TestAddListLoad(t *testing.T) {
	dir := t.TempDir()
	if list, err := List(dir); err != nil || len(list) != 0 {
		t.Fatalf("List(empty) = %v, %v; want none", list, err)
	}
	for _, hash := range []string{"sha256:a", "sha256:b"} {
		if _, err := Add(dir, testKey, Revision{Plan: hash, Outcome: "finished", Objects: []Object{{Ref: object.Ref{Kind: "ConfigMap", Name: "c"}}}}); err != nil {
			t.Fatal(err)
		}
	}
	list, err := List(dir)
	if err != nil || len(list) != 2 || list[0].Number != 1 || list[1].Number != 2 || list[1].Plan != "sha256:b" || list[0].Schema != Schema {
		t.Fatalf("List() = %+v, %v; want revisions 1 and 2 in order", list, err)
	}
	if _, err := Load(dir, 3); !errors.Is(err, ErrNoRevision) {
		t.Errorf("Load(3) error = %v, want ErrNoRevision", err)
	}
	st, _ := os.Stat(file(dir, 1))
	if st.Mode().Perm() != 0o600 {
		t.Errorf("revision file mode %v, want 0600", st.Mode().Perm())
	}
}

// LatestWithoutManifests is the newest revision as Latest reads it, its
// objects' manifests left out; none is nil, as Latest's.
func TestLatestWithoutManifests(t *testing.T) {
	dir := t.TempDir()
	if r, err := LatestWithoutManifests(dir); r != nil || err != nil {
		t.Fatalf("LatestWithoutManifests(no revision) = %v, %v; want nil, nil", r, err)
	}
	manifest := map[string]any{"kind": "ConfigMap", "data": map[string]any{"k": "v"}}
	for _, hash := range []string{"sha256:a", "sha256:b"} {
		objs := []Object{{Ref: object.Ref{Kind: "ConfigMap", Namespace: "n", Name: "c"}, APIVersion: "v1", Resource: "configmaps", Manifest: manifest}}
		if _, err := Add(dir, testKey, Revision{Plan: hash, Outcome: "finished", Objects: objs}); err != nil {
			t.Fatal(err)
		}
	}
	want, err := Latest(dir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := LatestWithoutManifests(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got.Number != 2 || got.Plan != "sha256:b" || got.Seal != want.Seal || len(got.Objects) != 1 {
		t.Fatalf("LatestWithoutManifests() = %+v; want revision 2 of plan b", got)
	}
	o, w := got.Objects[0], want.Objects[0]
	if o.Ref != w.Ref || o.APIVersion != "v1" || o.Resource != "configmaps" || o.Manifest != nil || w.Manifest == nil {
		t.Errorf("object = %+v; want %+v without its manifest", o, w)
	}
}
