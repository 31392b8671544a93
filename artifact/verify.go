package artifact

import (
	"context"
)

// Verified is what Verify found: the build spec's inputs all match its
// lock file, whose digest therefore names every one of them.
type Verified struct {
	Spec       string   // the build spec, absolute
	Layout     string   // the OCI layout Build writes
	LockDigest string   // "sha256:" and the hex SHA-256 of the lock file's bytes
	Images     []string // the images the spec declares, sorted
}

// Verify checks every input of the build spec at specPath against its lock
// file, as Build does before it writes anything, and writes nothing
// itself. Drift is an *InputError naming each input, a missing lock a
// refusal (refusal.Is). Two Verify calls with the same LockDigest mean the same
// inputs, so the same build.
func Verify(ctx context.Context, specPath string) (*Verified, error) {
	s, err := LoadSpec(specPath)
	if err != nil {
		return nil, err
	}
	_, data, err := verifyPinned(ctx, s)
	if err != nil {
		return nil, err
	}
	return &Verified{Spec: s.Path, Layout: s.Layout, LockDigest: "sha256:" + sha256Hex(data), Images: sortedKeys(s.Images)}, nil
}
