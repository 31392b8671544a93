package plan

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/pynenc/piceli/internal/graph"
	"github.com/pynenc/piceli/internal/object"
)

// planJSON and stepJSON mirror Plan and Step field for field (name, tag
// and type), but for the encoded manifest and the steps holding it.
func TestTheEncodingMirrorsFollowPlanAndStep(t *testing.T) {
	mirrors := []struct {
		of, mirror reflect.Type
		differ     map[string]reflect.Type // field: its type in the mirror
	}{
		{of: reflect.TypeFor[Step](), mirror: reflect.TypeFor[stepJSON](), differ: map[string]reflect.Type{"Manifest": reflect.TypeFor[json.RawMessage]()}},
		{of: reflect.TypeFor[Plan](), mirror: reflect.TypeFor[planJSON](), differ: map[string]reflect.Type{"Steps": reflect.TypeFor[[]stepJSON]()}},
	}
	for _, m := range mirrors {
		if m.of.NumField() != m.mirror.NumField() {
			t.Errorf("%s has %d fields, its mirror %s %d", m.of, m.of.NumField(), m.mirror, m.mirror.NumField())
			continue
		}
		for i := range m.of.NumField() {
			f, g := m.of.Field(i), m.mirror.Field(i)
			want := f.Type
			if d, ok := m.differ[f.Name]; ok {
				want = d
			}
			if f.Name != g.Name || f.Tag != g.Tag || g.Type != want {
				t.Errorf("field %d of %s is %s %s `%s`, of its mirror %s %s `%s`", i, m.of, f.Name, f.Type, f.Tag, g.Name, g.Type, g.Tag)
			}
		}
	}
}

// encodingPlan is a plan whose steps hold what encoding could treat
// differently: no manifest, an empty one, HTML characters, line and
// paragraph separators, integers and floats, nested lists, and every
// optional field.
func encodingPlan() *Plan {
	ref := object.Ref{Kind: "ConfigMap", Namespace: "shop", Name: "a"}
	full := Step{
		Ref: ref, APIVersion: "v1", Resource: "configmaps", Stage: graph.StageConfig, Action: Update,
		Observed: Observed{UID: "u", ResourceVersion: "7", Generation: 2, Fields: "hmac-sha256:f"}, Desired: "hmac-sha256:d",
		Manifest: map[string]any{"kind": "ConfigMap", "data": map[string]any{"html": "<b>&</b>", "sep": "a\u2028b\u2029c", "é": "ü"},
			"n": int64(9007199254740993), "f": 1.5, "list": []any{map[string]any{"z": 1.0, "a": nil}, true, "x"}},
		DependsOn: []object.Ref{ref}, Conflicts: []Conflict{{Manager: "m", Fields: []string{".data.x"}}}, Blocked: "why",
		Origin: "file.yaml:3", Changes: []Change{{Path: ".data.html", Kind: Changed}}, Seal: "hmac-sha256:s",
		Warnings: []string{"w"}, NoWait: "annotation",
	}
	return &Plan{
		Schema: Schema, Hash: "sha256:h", Seal: "hmac-sha256:p", Release: Release{Name: "shop", Owner: "shop", FieldManager: "piceli-shop"},
		Target: Target{Server: "https://127.0.0.1:6443", Context: "c", Namespace: "shop", ClusterUID: "k"}, Namespaces: []string{"shop"},
		Steps: []Step{full, {Ref: ref, Action: Delete}, {Ref: ref, Action: NoOp, Manifest: map[string]any{}}},
		Waves: []graph.Wave{{Stage: graph.StageConfig, Nodes: []int{0, 1, 2}}}, Kept: []Kept{{Ref: ref, UID: "u2", Reason: "kept"}},
	}
}

// A plan encodes to the same bytes through its mirrors as through Plan
// and Step, so hashes and seals are those of plans stored before the
// mirrors: ComputeHash is still the SHA-256 of the plain encoding of its
// hashed part.
func TestAPlanEncodesAlikeThroughItsMirrors(t *testing.T) {
	p := encodingPlan()
	ms, err := manifestsOf(p)
	if err != nil {
		t.Fatal(err)
	}
	steps := make([]stepJSON, len(p.Steps))
	for i, s := range p.Steps {
		steps[i] = wireStep(s, ms[i])
		want, _ := json.Marshal(s)
		if got, _ := json.Marshal(steps[i]); string(got) != string(want) {
			t.Errorf("step %d encodes through its mirror as\n%s\nwant\n%s", i, got, want)
		}
	}
	want, _ := json.Marshal(p)
	if got, _ := json.Marshal(wirePlan(p, steps)); string(got) != string(want) {
		t.Errorf("the plan encodes through its mirror as\n%s\nwant\n%s", got, want)
	}
	plain := *p
	plain.Hash, plain.Seal, plain.Kept = "", "", nil
	plain.Steps = make([]Step, len(p.Steps))
	for i, s := range p.Steps {
		s.Changes, s.Origin, s.Seal, s.Warnings = nil, "", "", nil
		plain.Steps[i] = s
	}
	data, _ := json.Marshal(&plain)
	got, err := ComputeHash(p)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	if want := "sha256:" + hex.EncodeToString(sum[:]); got != want {
		t.Errorf("ComputeHash() = %s, want %s (the plain encoding's)", got, want)
	}
}

// counted is a manifest value that counts its encodings.
type counted struct{ n *int }

func (c counted) MarshalJSON() ([]byte, error) {
	*c.n++
	return []byte(`"v"`), nil
}

// Saving a plan encodes each manifest once, for its hash, every seal and
// the file alike, and checking a loaded plan's hash and seals encodes none again
// (read encodes them once, right after decoding): manifests are most of a
// plan's bytes, and encoding them is most of what a Load of 1,000 objects
// costs besides decoding.
func TestAManifestIsEncodedOncePerSaveOrLoad(t *testing.T) {
	dir := t.TempDir()
	key := []byte("0123456789abcdef0123456789abcdef")
	if err := StoreKey(dir, key); err != nil {
		t.Fatal(err)
	}
	n := 0
	p := encodingPlan()
	p.Steps = p.Steps[:1]
	p.Steps[0].Manifest = map[string]any{"kind": "ConfigMap", "value": counted{&n}}
	p.Steps[0].Desired = Digester{Key: key}.Of(p.Steps[0].Manifest)
	p.Waves = []graph.Wave{{Stage: graph.StageConfig, Nodes: []int{0}}}
	n = 0
	if _, err := Save(dir, p); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Errorf("Save encoded the manifest %d times, want once", n)
	}
	ms, err := manifestsOf(p)
	if err != nil {
		t.Fatal(err)
	}
	s, err := newSealer(key)
	if err != nil {
		t.Fatal(err)
	}
	n = 0
	if _, err := hashWith(p, ms); err != nil {
		t.Fatal(err)
	}
	if err := s.verify(p, ms); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("checking the hash and seals of a plan with its manifests encoded encoded them %d more times, want none", n)
	}
}
