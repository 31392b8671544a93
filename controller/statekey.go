package controller

import (
	"fmt"
	"path/filepath"

	"github.com/pynenc/piceli/internal/atomicfile"
	"github.com/pynenc/piceli/internal/inputfile"
	"github.com/pynenc/piceli/internal/signer"
)

// privateKey copies the state signing key at path into dir, owner-only,
// and loads the copy. A key mounted from a Secret is a symlink into a
// directory the kubelet owns, readable by the pod's group: the signer
// refuses to read such a file as a private key, so the controller reads
// it once (bounded, following the kubelet's link) and keeps its own.
func privateKey(path, dir string) (*signer.Key, string, error) {
	data, err := inputfile.Read(path, inputfile.CredentialLimit)
	if err != nil {
		return nil, "", fmt.Errorf("state signing key: %w", err)
	}
	cp := filepath.Join(dir, "state-signing.key")
	if err := atomicfile.Write(cp, data, 0o600); err != nil {
		return nil, "", fmt.Errorf("state signing key: %w", err)
	}
	key, err := signer.Load(cp)
	if err != nil {
		return nil, "", fmt.Errorf("state signing key %s: %w", path, err)
	}
	return key, cp, nil
}
