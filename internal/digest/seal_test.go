package digest

import "testing"

func TestSealKeyIsOneKeyPerKindOfSeal(t *testing.T) {
	key := []byte("the release's digest key")
	plans, err := SealKey(key, "piceli plan seal v1")
	if err != nil {
		t.Fatal(err)
	}
	revs, _ := SealKey(key, "piceli revision seal v1")
	v := map[string]int{"number": 3}
	a, _ := Seal(plans, v)
	b, _ := Seal(revs, v)
	c, _ := Seal(plans, map[string]int{"number": 4})
	again, _ := Seal(plans, v)
	switch {
	case Equal(a, b):
		t.Error("a plan seal and a revision seal of the same value are equal; want one key per kind")
	case Equal(a, c):
		t.Error("seals of different values are equal")
	case !Equal(a, again):
		t.Error("two seals of one value under one key differ")
	case Equal(a, Of(key, []byte(`{"number":3}`))):
		t.Error("a seal equals the digest key's own digest of the value; want a derived key")
	}
}
