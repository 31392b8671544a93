package plan

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestDigesterPinsItsOutput guards stored plans: a digest recorded by an
// earlier Piceli must be computed alike by this one, or every stored plan
// would look stale. The values were checked with
// `openssl dgst -sha256 -hmac 'pinned key'`.
func TestDigesterPinsItsOutput(t *testing.T) {
	d := Digester{Key: []byte("pinned key")}
	secret := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "db"},
		"data": map[string]any{"password": "aHVudGVyMg=="}, // "hunter2"
	}}
	sealed, _, _ := unstructured.NestedString(d.Sealed(secret), "data", "password")
	tests := []struct {
		name string
		got  string
		want string
	}{
		{
			name: "a value digests its JSON encoding",
			got:  d.Of(map[string]any{"kind": "ConfigMap", "data": map[string]any{"a": "1"}}),
			want: "hmac-sha256:29c6d4eb713e3c6811ac06c16cf00fdbbdbe835b77f98fa3cd3edbc945dcb23a",
		},
		{
			name: "a sealed Secret value is the digest of its decoded bytes",
			got:  sealed,
			want: "hmac-sha256:7843b8d3ea1385a674153195faa61d951cdc107e882873b0396549aebdae5927",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("digest = %s, want %s", tt.got, tt.want)
			}
		})
	}
}

// OfSealed digests what Sealed gives, Secret values as keyed digests, and
// leaves the object as it was.
func TestOfSealedIsTheDigestOfSealed(t *testing.T) {
	d := Digester{Key: testKey}
	for _, u := range []*unstructured.Unstructured{
		{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "c"}, "data": map[string]any{"a": "1"}}},
		{Object: map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "s"}, "stringData": map[string]any{"password": "hunter2"}}},
	} {
		before := u.DeepCopy()
		if got, want := d.OfSealed(u), d.Of(d.Sealed(u)); got != want {
			t.Errorf("%s: OfSealed() = %s, want Of(Sealed()) = %s", u.GetKind(), got, want)
		}
		if !equality.Semantic.DeepEqual(u.Object, before.Object) {
			t.Errorf("%s: OfSealed changed the object: %v, was %v", u.GetKind(), u.Object, before.Object)
		}
	}
}
