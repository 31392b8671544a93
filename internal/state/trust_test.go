package state

import (
	"errors"
	"strings"
	"testing"

	"github.com/pynenc/piceli/internal/signer"
)

// A snapshot signed here verifies for the same release, namespace and
// cluster, and fails, naming what failed, once anything its statement
// covers differs, when signed by a key the spec does not list, or
// unsigned.
func TestVerifySnapshot(t *testing.T) {
	writer := signed(t, &Cluster{Namespace: "shop", Release: "shop"})
	attacker := newKey(t)
	sign := func(edit func(s *Snapshot)) *Snapshot {
		s := &Snapshot{Generation: 7, Digest: strings.Repeat("ab", 32), Size: 1234, Files: 9}
		writer.sign(s)
		edit(s)
		return s
	}
	tests := []struct {
		name   string
		reader *Cluster
		snap   *Snapshot
		want   string // "" verifies
	}{
		{name: "the writer's own snapshot verifies", reader: writer, snap: sign(func(*Snapshot) {})},
		{name: "another digest fails", reader: writer, snap: sign(func(s *Snapshot) { s.Digest = strings.Repeat("cd", 32) }), want: "does not verify"},
		{name: "another generation fails", reader: writer, snap: sign(func(s *Snapshot) { s.Generation = 8 }), want: "does not verify"},
		{name: "another size fails", reader: writer, snap: sign(func(s *Snapshot) { s.Size++ }), want: "does not verify"},
		{name: "another file count fails", reader: writer, snap: sign(func(s *Snapshot) { s.Files++ }), want: "does not verify"},
		{name: "another release's reader refuses it", reader: &Cluster{Namespace: "shop", Release: "cart", ClusterUID: testClusterUID, Signers: writer.Signers}, snap: sign(func(*Snapshot) {}), want: "does not verify"},
		{name: "a reader of another namespace refuses it", reader: &Cluster{Namespace: "ops", Release: "shop", ClusterUID: testClusterUID, Signers: writer.Signers}, snap: sign(func(*Snapshot) {}), want: "does not verify"},
		{name: "a reader of another cluster refuses it", reader: &Cluster{Namespace: "shop", Release: "shop", ClusterUID: "other-cluster", Signers: writer.Signers}, snap: sign(func(*Snapshot) {}), want: "does not verify"},
		{name: "a reader that does not trust the writer refuses it", reader: &Cluster{Namespace: "shop", Release: "shop", ClusterUID: testClusterUID, Signers: []signer.Signer{attacker.Signer("other")}}, snap: sign(func(*Snapshot) {}), want: "signature by a key not in state_signers"},
		{name: "a snapshot re-signed by an untrusted key is refused", reader: writer, snap: sign(func(s *Snapshot) {
			s.Signer = signer.Signer{Key: attacker.Public()}.ID()
		}), want: "signature by a key not in state_signers"},
		{name: "an unsigned snapshot is refused", reader: writer, snap: sign(func(s *Snapshot) { s.Signature = "" }), want: "not signed"},
		{name: "a signer that is not a key is refused", reader: writer, snap: sign(func(s *Snapshot) { s.Signer = "ed25519:xx" }), want: "its signer is not a key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.reader.verify(tt.snap)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("verify() = %v, want it to verify", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, ErrUntrusted) {
				t.Fatalf("verify() = %v, want ErrUntrusted saying %q", err, tt.want)
			}
			if !strings.Contains(err.Error(), "state snapshot ") || !strings.Contains(err.Error(), " of release "+tt.reader.Release+": ") {
				t.Errorf("verify() = %v, want it to name the snapshot and the release", err)
			}
		})
	}
}

// A machine whose key the spec does not list, or that has none, may not
// write; the error names its public key and the line to add.
func TestWriterMustBeTrusted(t *testing.T) {
	own := machineKey(t)
	c := &Cluster{Release: "shop", Key: own, Signers: []signer.Signer{newKey(t).Signer("someone else")}}
	_, err := c.writer()
	id := signer.Signer{Key: own.Public()}.ID()
	if !errors.Is(err, ErrUntrusted) || !strings.Contains(err.Error(), id) || !strings.Contains(err.Error(), "state_signers") {
		t.Errorf("writer() with an untrusted key = %v, want ErrUntrusted naming %s and state_signers", err, id)
	}
	c.Key = nil
	if _, err := c.writer(); !errors.Is(err, ErrUntrusted) || !strings.Contains(err.Error(), "piceli state key") {
		t.Errorf("writer() without a key = %v, want ErrUntrusted saying how to make one", err)
	}
}
