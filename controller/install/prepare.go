package install

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/BurntSushi/toml"

	"github.com/pynenc/piceli/internal/atomicfile"
	"github.com/pynenc/piceli/internal/signer"
	"github.com/pynenc/piceli/publish"
	"github.com/pynenc/piceli/refusal"
	"github.com/pynenc/piceli/release"
)

// The files of a prepared release in its directory.
const (
	SpecFile    = "release.toml"
	ArtifactDir = "artifact"
	StateDir    = "state"
)

// specHeader starts every release.toml Prepare writes; a release.toml
// without it is someone else's and is never overwritten.
const specHeader = "# Written by piceli controller install and uninstall, which rewrite it.\n"

// Prepared is the controller's release written to its directory, ready to
// be planned and applied through package release (Open).
type Prepared struct {
	// Dir is the release's directory, absolute.
	Dir string
	// Spec is its release.toml; Artifact the OCI layout of its objects,
	// which is the --artifact of any `piceli release` command on Spec.
	Spec     string
	Artifact string
	// Digest is the artifact's manifest digest.
	Digest string
	// KeyFile is the controller's state signing key on this machine, and
	// KeyCreated says this call created it. Empty for an uninstall.
	KeyFile    string
	KeyCreated bool
	// Signer is the key's public signer line ("ed25519:<base64> NAME"),
	// which every release the controller applies lists in state_signers.
	Signer string
}

// Open opens the prepared release with opts, its artifact in place of a
// composition.
func (p *Prepared) Open(opts release.Options) (*release.Release, error) {
	opts.Artifact = p.Artifact
	return release.Open(p.Spec, opts)
}

// Prepare writes the controller's install release into o.Dir (created
// owner-only when missing): the state signing key KeyFile, created once
// and kept (one per context and namespace with the default Dir), the
// artifact of Content and release.toml (the target, state in StateDir,
// prune on). Bad options are refused (refusal.Is) before anything is
// written; so is a Dir whose release.toml Prepare did not write. Nothing
// reaches a cluster.
func Prepare(o Options) (*Prepared, error) {
	c, err := Content(o)
	if err != nil {
		return nil, err
	}
	dir, err := o.ready()
	if err != nil {
		return nil, err
	}
	key, created, err := signer.LoadOrCreate(filepath.Join(dir, KeyFile))
	if err != nil {
		return nil, err
	}
	p, err := write(o, dir, c)
	if err != nil {
		return nil, err
	}
	p.KeyFile, p.KeyCreated = filepath.Join(dir, KeyFile), created
	p.Signer = key.Signer(signerName(o.Context, o.namespace())).String()
	return p, nil
}

// PrepareUninstall writes the release that removes the controller into
// o.Dir, which must hold the state of the release an install applied from
// this machine: UninstallContent, prune on. Its plan deletes every object
// of the install but the Namespace (never pruned: the target namespace of
// a release) and the CRD (declared), and nothing else. Nothing reaches a
// cluster.
func PrepareUninstall(o Options) (*Prepared, error) {
	c, err := UninstallContent(o)
	if err != nil {
		return nil, err
	}
	dir, err := o.dir()
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(dir, StateDir)); err != nil {
		return nil, refusal.Errorf("controller: no controller installed from this machine for context %q and namespace %s: %s has no release state (%v); uninstall uses the directory of the install (--dir)", o.Context, o.namespace(), dir, errors.Unwrap(err))
	}
	if _, err := o.ready(); err != nil {
		return nil, err
	}
	return write(o, dir, c)
}

// ready refuses a directory holding a release.toml Prepare did not write,
// then creates it, owner-only, when missing, and returns it.
func (o Options) ready() (string, error) {
	dir, err := o.dir()
	if err != nil {
		return "", err
	}
	data, err := os.ReadFile(filepath.Join(dir, SpecFile))
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return "", refusal.Errorf("controller: read %s: %w", filepath.Join(dir, SpecFile), err)
	case !bytes.HasPrefix(data, []byte(specHeader)):
		return "", refusal.Errorf("controller: %s holds a release.toml that piceli controller did not write; choose another --dir", dir)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("controller: create %s: %w", dir, err)
	}
	return dir, nil
}

// write writes c's artifact and the release.toml into dir.
func write(o Options, dir string, c *publish.Content) (*Prepared, error) {
	a, err := publish.Build(c)
	if err != nil {
		return nil, err
	}
	p := &Prepared{Dir: dir, Spec: filepath.Join(dir, SpecFile), Artifact: filepath.Join(dir, ArtifactDir), Digest: a.Digest}
	if err := publish.WriteLayout(p.Artifact, a, ReleaseName); err != nil {
		return nil, err
	}
	kubeconfig, err := filepath.Abs(o.Kubeconfig)
	if err != nil {
		return nil, err
	}
	spec, err := specText(kubeconfig, o.Context, o.namespace())
	if err != nil {
		return nil, err
	}
	if err := atomicfile.Write(p.Spec, spec, 0o600); err != nil {
		return nil, err
	}
	return p, nil
}

// rawSpec is the release.toml Prepare writes.
type rawSpec struct {
	Target struct {
		Kubeconfig string `toml:"kubeconfig"`
		Context    string `toml:"context"`
		Namespace  string `toml:"namespace"`
	} `toml:"target"`
	Release struct {
		Name                string `toml:"name"`
		Composition         string `toml:"composition"`
		StateDir            string `toml:"state_dir"`
		Prune               bool   `toml:"prune"`
		RequirePinnedImages bool   `toml:"require_pinned_images"`
	} `toml:"release"`
}

// specText encodes the release.toml: strings are TOML-escaped by the
// encoder, whatever the context's name holds.
func specText(kubeconfig, kubeContext, namespace string) ([]byte, error) {
	var s rawSpec
	s.Target.Kubeconfig, s.Target.Context, s.Target.Namespace = kubeconfig, kubeContext, namespace
	s.Release.Name, s.Release.StateDir, s.Release.Prune, s.Release.RequirePinnedImages = ReleaseName, StateDir, true, true
	// Never read: the objects come from the artifact (Prepared.Open, or
	// --artifact on the command line).
	s.Release.Composition = "objects-are-in-the-artifact/"
	var buf bytes.Buffer
	buf.WriteString(specHeader)
	buf.WriteString("# Its objects are the OCI layout in " + ArtifactDir + "/: give it as --artifact to piceli release commands.\n")
	if err := toml.NewEncoder(&buf).Encode(s); err != nil {
		return nil, fmt.Errorf("controller: encode release.toml: %w", err)
	}
	return buf.Bytes(), nil
}

// signerName names the controller's key in its signer line: the
// controller, its namespace and the context (made printable ASCII).
func signerName(kubeContext, namespace string) string {
	safe := []byte(kubeContext)
	for i, c := range safe {
		if c < 0x21 || c > 0x7e {
			safe[i] = '_'
		}
	}
	if len(safe) > 100 {
		safe = safe[:100]
	}
	return "piceli-controller " + namespace + "@" + string(safe)
}
