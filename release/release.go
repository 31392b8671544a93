package release

import (
	"io"
	"net/http"

	"github.com/pynenc/piceli/internal/spec"
	"github.com/pynenc/piceli/plan"
)

// Options configure a Release. The zero value is valid.
type Options struct {
	// Log receives one line per notable step outside a run, such as which
	// server and context are used or that a composition is being compiled.
	// Nil discards them.
	Log io.Writer
	// AllowExec lets the kubeconfig's exec credential plugin run; without
	// it a kubeconfig that needs one is refused.
	AllowExec bool
	// CacheDir holds compiled compositions; empty means $PICELI_CACHE_DIR or
	// the user cache directory.
	CacheDir string
	// StateKeyFile is this machine's state signing key file, which signs
	// what a release with state = "cluster" pushes; empty means
	// $PICELI_STATE_KEY_FILE or <user config dir>/piceli/state-signing.key.
	// Reading shared state needs no key.
	StateKeyFile string
	// Artifact, when set, is a published release (package publish) used
	// instead of the spec's composition: an OCI layout directory or
	// oci://HOST[:PORT]/REPO@sha256:DIGEST (a tag is refused). Its objects,
	// components and secret declarations are those the composition gave
	// when it was published, so a plan from it equals a plan from the
	// source; the spec still gives the target, state and policies, and
	// must name the artifact's release and namespace.
	Artifact string
	// Env is the environment of the spec's [environments] to open: required
	// when the spec declares any, and must be empty when it declares none.
	// The release is then that environment's, with its own target, values,
	// images, state directory, history and locks.
	Env string
	// InCluster says the release is driven from inside the cluster (the
	// controller): secrets whose source is a file or an environment
	// variable of the operator's machine are refused, naming the secret
	// and key, because no such machine is there. Generated and FromCluster
	// sources work.
	InCluster bool

	// wrapTransport wraps every request to the target: tests count them.
	wrapTransport func(http.RoundTripper) http.RoundTripper
}

// Release is a release spec opened for work. Open reads only the spec;
// each call that needs the composition or the cluster loads and connects
// afresh, so a Release stays valid across changes to the composition.
// Methods may be called one at a time; the release's locks keep concurrent
// writers (in this process or another) out.
type Release struct {
	spec *spec.Spec
	opts Options
	path string // the spec's path as given to Open
	// promotion, when set, gives the [images] keys it names its digests
	// (composedSpec) and is recorded in the plans made (session
	// environment): the release of a promoted plan, planned or applied.
	promotion *plan.Promotion
}

// Open reads and validates the release spec at path, resolved for
// opts.Env. A bad spec, a missing or unknown environment, is a refusal
// naming the file, line and key. Nothing else is read.
func Open(path string, opts Options) (*Release, error) {
	s, err := spec.LoadEnv(path, opts.Env)
	if err != nil {
		return nil, refuse(err)
	}
	return &Release{spec: s, opts: opts, path: path}, nil
}

// Name is the release's name.
func (r *Release) Name() string { return r.spec.Release.Name }

// StateDir is the directory holding the release's plans, runs, revisions
// and private secret versions. It belongs to this release alone: the first
// method that keeps something there records the release (its name and
// target namespace) as the owner, in owner.json, and every method that
// uses the directory refuses one recorded for another release (refusal.Is)
// before reading or writing anything in it.
func (r *Release) StateDir() string { return r.spec.Release.StateDir }

func (r *Release) log() io.Writer {
	if r.opts.Log == nil {
		return io.Discard
	}
	return r.opts.Log
}

// Claim records the release as the owner of its state directory, as the
// first method that keeps something there does, and refuses (a
// refusal) a directory recorded for another release. Programs that
// keep their own records in the state directory (package deploy) call it
// before their first write.
func (r *Release) Claim() error { return r.claimOwner() }

// Environment is the environment of the spec the release was opened for;
// empty when the spec declares none.
func (r *Release) Environment() string { return r.spec.Environment }

// Spec is the path of the release spec, absolute.
func (r *Release) Spec() string { return r.spec.Path }
