package secret

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestChangedKeys(t *testing.T) {
	tests := []struct {
		name     string
		old, new *Version
		want     []string
	}{
		{name: "equal values change nothing", old: testVersion(1, map[string]string{"a": "1"}), new: testVersion(2, map[string]string{"a": "1"})},
		{name: "a changed value is named", old: testVersion(1, map[string]string{"a": "1", "b": "2"}), new: testVersion(2, map[string]string{"a": "1", "b": "3"}), want: []string{"b"}},
		{name: "added and removed keys are named in order", old: testVersion(1, map[string]string{"z": "1"}), new: testVersion(2, map[string]string{"a": "1"}), want: []string{"a", "z"}},
		{name: "from no version every key is new", new: testVersion(1, map[string]string{"b": "1", "a": "2"}), want: []string{"a", "b"}},
		{name: "two missing versions change nothing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, ChangedKeys(tt.old, tt.new)); diff != "" {
				t.Errorf("ChangedKeys() (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDigest(t *testing.T) {
	key := []byte("digest key")
	base := Digest(key, testVersion(1, map[string]string{"a": "1", "b": "2"}))
	tests := []struct {
		name      string
		key       []byte
		v         *Version
		wantEqual bool
	}{
		{name: "the same values under another number are equal", key: key, v: testVersion(7, map[string]string{"b": "2", "a": "1"}), wantEqual: true},
		{name: "a changed value differs", key: key, v: testVersion(1, map[string]string{"a": "1", "b": "3"})},
		{name: "a value moved to another key differs", key: key, v: testVersion(1, map[string]string{"a": "12", "b": ""})},
		{name: "another digest key differs", key: []byte("other key"), v: testVersion(1, map[string]string{"a": "1", "b": "2"})},
		{name: "no version differs", key: key},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Digest(tt.key, tt.v)
			if (got == base) != tt.wantEqual {
				t.Errorf("Digest() = %s, base %s, want equal %v", got, base, tt.wantEqual)
			}
			if hex, ok := strings.CutPrefix(got, "hmac-sha256:"); !ok || len(hex) != 64 {
				t.Errorf("Digest() = %s, want hmac-sha256: and 64 hex digits", got)
			}
		})
	}
}

func TestShowIsMetadataOnly(t *testing.T) {
	v := testVersion(3, map[string]string{"password": "hunter2"})
	want := "secret db version 3 created 2025-01-02T03:04:05Z\n  password: env ref=\"password\""
	if got := Show(v); got != want {
		t.Errorf("Show() = %q, want %q", got, want)
	}
}
