package state

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/pynenc/piceli/internal/signer"
)

// StatementSchema versions the statement a snapshot's signature covers.
const StatementSchema = "piceli.state-statement/v1"

// ErrUntrusted is matched by the error of a read or a push refused because
// a snapshot's signature, or the writer's key, is not one the spec's
// state_signers trust.
var ErrUntrusted = errors.New("not trusted by [release] state_signers")

// Statement is what the writer of a snapshot signs: which release's state
// it is, where (the state namespace and the target cluster's identity),
// its generation, and the SHA-256, size and file count of its content. A
// signed snapshot cannot be moved to another release, namespace or
// cluster, renumbered, or given other content without the signature
// failing.
type Statement struct {
	Schema     string `json:"schema"`
	Release    string `json:"release"`
	Namespace  string `json:"namespace"`
	Cluster    string `json:"cluster"` // the kube-system Namespace UID
	Generation int64  `json:"generation"`
	Digest     string `json:"sha256"`
	Size       int    `json:"size"`
	Files      int    `json:"files"`
}

// encode is the statement's signed form: its JSON, whose field order the
// struct fixes. Readers rebuild the statement from what they know and the
// manifest says, and never parse signed bytes.
func (s Statement) encode() []byte {
	data, _ := json.Marshal(s)
	return data
}

// statement is the statement of snap for this release, namespace and
// cluster.
func (c *Cluster) statement(snap *Snapshot) Statement {
	return Statement{
		Schema: StatementSchema, Release: c.Release, Namespace: c.Namespace, Cluster: c.ClusterUID,
		Generation: snap.Generation, Digest: snap.Digest, Size: snap.Size, Files: snap.Files,
	}
}

// writer returns this machine's signing key as a trusted signer, or why it
// may not write the state: no key, or a key the spec does not list.
func (c *Cluster) writer() (signer.Signer, error) {
	if c.Key == nil {
		return signer.Signer{}, fmt.Errorf("write state of release %s: no state signing key on this machine: run \"piceli state key\": %w", c.Release, ErrUntrusted)
	}
	s, ok := signer.Find(c.Signers, c.Key.Public())
	if !ok {
		return s, fmt.Errorf("write state of release %s: this machine's signing key %s (%s) is not in [release] state_signers; add the line %q to the spec (piceli state key prints it): %w",
			c.Release, signer.Signer{Key: c.Key.Public()}.ID(), c.Key.File, c.Key.Signer(signer.DefaultName()).String(), ErrUntrusted)
	}
	return s, nil
}

// sign records this machine's key and its signature of snap's statement
// in snap.
func (c *Cluster) sign(snap *Snapshot) {
	snap.Signer = signer.Signer{Key: c.Key.Public()}.ID()
	snap.Signature = base64.StdEncoding.EncodeToString(c.Key.Sign(c.statement(snap).encode()))
}

// verify checks snap's signature: by a key of the spec's state_signers,
// over the statement of this release, namespace and cluster. It returns
// the signer, or an error matching ErrUntrusted saying what failed.
func (c *Cluster) verify(snap *Snapshot) (signer.Signer, error) {
	fail := func(format string, args ...any) (signer.Signer, error) {
		what := fmt.Sprintf(format, args...)
		return signer.Signer{}, fmt.Errorf("state snapshot %d of release %s: %s: %w", snap.Generation, c.Release, what, ErrUntrusted)
	}
	if snap.Signer == "" || snap.Signature == "" {
		return fail("not signed (written by a piceli older than signed state, or edited); a signer in state_signers must push it again (piceli state migrate cluster)")
	}
	key, err := signer.ParseID(snap.Signer)
	if err != nil {
		return fail("its signer is not a key: %v", err)
	}
	s, ok := signer.Find(c.Signers, key)
	if !ok {
		return fail("signature by a key not in state_signers (%s)", snap.Signer)
	}
	sig, err := base64.StdEncoding.DecodeString(snap.Signature)
	if err != nil || !ed25519.Verify(key, c.statement(snap).encode(), sig) {
		return fail("signature by %q does not verify (changed since it was signed, or signed for another release, namespace or cluster)", s.Name)
	}
	return s, nil
}
