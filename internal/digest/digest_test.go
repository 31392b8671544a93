package digest

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"sync"
	"testing"
)

// TestDigestsArePinned guards what Piceli has stored: plans and pod-template
// annotations hold these digests, so their values must never change. The
// wanted values were computed outside Go (openssl dgst -sha256 -hmac, and
// Python's hmac over the length-prefixed fields).
func TestDigestsArePinned(t *testing.T) {
	key := []byte("pinned key")
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"bytes digest as they are", Of(key, []byte("hunter2")),
			"hmac-sha256:7843b8d3ea1385a674153195faa61d951cdc107e882873b0396549aebdae5927"},
		{"fields digest length-prefixed", Fields(key, []byte("password"), []byte("hunter2"), []byte("user"), []byte("admin")),
			"hmac-sha256:4d03d5d8f29b0b1b5e70aac37342bba960cd0b318ba0b9495c575572abde1b87"},
		{"no fields digest the empty message", Fields(key),
			"hmac-sha256:c8dd5727e91569a2cbf083f3f5345f02b3636475afa3ef7fdc798692ac605f03"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("digest = %s, want %s", tt.got, tt.want)
			}
		})
	}
}

func TestFieldsKeepBoundaries(t *testing.T) {
	key := []byte("k")
	if a, b := Fields(key, []byte("ab"), []byte("c")), Fields(key, []byte("a"), []byte("bc")); a == b {
		t.Errorf(`Fields("ab", "c") = Fields("a", "bc") = %s, want them to differ`, a)
	}
	if a, b := Fields([]byte("k1"), []byte("v")), Fields([]byte("k2"), []byte("v")); a == b {
		t.Errorf("Fields under two keys = %s, want them to differ", a)
	}
}

// TestOfUnderManyKeysAtOnce holds the pooled HMACs to a fresh one per call:
// keys taking turns, from goroutines at once, never mix.
func TestOfUnderManyKeysAtOnce(t *testing.T) {
	fresh := func(key, data []byte) string {
		m := hmac.New(sha256.New, key)
		m.Write(data)
		return Prefix + hex.EncodeToString(m.Sum(nil))
	}
	keys := [][]byte{[]byte("key one"), []byte("key two"), []byte("key one, longer"), nil}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := range 8 {
		wg.Go(func() {
			for i := range 500 {
				key, data := keys[(g+i)%len(keys)], []byte(strconv.Itoa(i))
				if got, want := Of(key, data), fresh(key, data); got != want {
					errs <- "Of(" + string(key) + ", " + string(data) + ") = " + got + ", want " + want
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
